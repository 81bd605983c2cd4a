package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.model.PromptRenderer;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.MetaHeader;
import io.cognitionstreams.schema.PacketHeader;
import io.cognitionstreams.schema.PacketPayload;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * Builds a cognition packet from a request. Deterministic: the same request gives the same packet bytes (ids are
 * derived from the request, the timestamp is the request's), which replays and forks rely on.
 */
public final class PacketAssembler {

    public static final int DEFAULT_MTU = 4096;

    private final Tokenizers tokenizers;
    private final TaskInstructions instructions;
    private final String identity;

    public PacketAssembler(Tokenizers tokenizers, TaskInstructions instructions, String identity) {
        this.tokenizers = tokenizers;
        this.instructions = instructions;
        this.identity = identity;
    }

    public CognitionPacket assemble(CognitionRequest request) {
        TokenCounter counter = tokenizers.forModel(request.getTargetModel());
        TaskInstructions.Instruction instruction = instructions.find(request.getTaskInstructionKey())
                .orElseThrow(() -> new InvalidRecordException("unknown task_instruction_key '"
                        + request.getTaskInstructionKey() + "'; known: " + instructions.keys()));
        int mtu = request.getMtu() != null ? request.getMtu() : DEFAULT_MTU;
        PacketHeader header = PacketHeader.newBuilder()
                .setIdentity(identity)
                .setPersona(Personas.text(request.getPersona()))
                .setTaskInstructionKey(instruction.key())
                .setTaskInstruction(instruction.text())
                .setActiveSkill(request.getActiveSkill())
                .build();
        PacketPayload payload = PacketPayload.newBuilder()
                .setHistory(List.of())
                .setUserPrompt(request.getUserPrompt())
                .build();
        Map<String, Integer> fieldTokens = new LinkedHashMap<>();
        fieldTokens.put("identity", counter.count(header.getIdentity()));
        fieldTokens.put("persona", counter.count(header.getPersona()));
        fieldTokens.put("task_instruction", counter.count(header.getTaskInstruction()));
        fieldTokens.put("user_prompt", counter.count(payload.getUserPrompt()));
        int total = counter.count(PromptRenderer.systemPrompt(header)) + fieldTokens.get("user_prompt");
        if (total > mtu) {
            throw new InvalidRecordException("packet needs " + total + " tokens (" + counter.encodingName()
                    + "), over its MTU of " + mtu);
        }
        MetaHeader meta = MetaHeader.newBuilder()
                .setPacketId(packetId(request.getRequestId(), request.getRetryCount()))
                .setParentId(request.getParentId())
                .setTimestamp(request.getTimestamp())
                .setRetryCount(request.getRetryCount() > 0 ? request.getRetryCount() : null)
                .build();
        return CognitionPacket.newBuilder()
                .setMeta(meta)
                .setRequestId(request.getRequestId())
                .setSessionId(request.getSessionId())
                .setTargetModel(request.getTargetModel())
                .setEncoding(counter.encodingName())
                .setMtu(mtu)
                .setHeader(header)
                .setPayload(payload)
                .setFieldTokens(fieldTokens)
                .setTotalTokens(total)
                .build();
    }

    /** 8 hex characters (seed 003 section 4.1.1), derived so a replayed request gets the same id. */
    static String packetId(String requestId, int retryCount) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((requestId + "#" + retryCount).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
