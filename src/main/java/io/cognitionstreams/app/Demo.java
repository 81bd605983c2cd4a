package io.cognitionstreams.app;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import io.cognitionstreams.schema.CognitionRequest;

/** Demo traffic for `cognition run --demo`: a few realistic requests and one record that is not Avro at all. */
public final class Demo {

    public static final String MALFORMED_KEY = "demo-malformed";
    /** The session whose approved call the executor runs. */
    public static final String INSPECT_SESSION = "demo-inspect";

    private Demo() {
    }

    public static List<CognitionRequest> requests(Instant now) {
        // Skills from skills/: git may not run shell commands (its EXECUTE is denied and the model re-anchored),
        // shell-operator may (its command reaches channel.shell), inspector calls the demo's workspace MCP server
        // and its next turn starts from the result.
        return List.of(
                request("demo-deploy", "developer", "git", "Plan the deploy of release 2.4.0 to production.", now),
                request("demo-triage", "developer", "shell-operator",
                        "Triage the crash bug reported against the parser.", now),
                request("demo-research", "researcher", "researcher",
                        "Research and compare the evaluation setups of three papers.", now),
                request("demo-cleanup", "architect", "shell-operator",
                        "Clean up the disk on the build server, it is full.", now),
                request(INSPECT_SESSION, "developer", "inspector", "Inspect the workspace and tell me what is in it.",
                        now));
    }

    /** Bytes that no Avro decoder accepts: shows the dead-letter path next to the valid traffic. */
    public static byte[] malformed() {
        return "{\"this\": \"is JSON, not an Avro cognition request\"}".getBytes(StandardCharsets.UTF_8);
    }

    private static CognitionRequest request(String session, String persona, String skill, String prompt,
                                            Instant now) {
        return CognitionRequest.newBuilder()
                // One id per run: a call's id derives from its request's, and a call id runs at most once.
                .setRequestId(session + "-" + Long.toString(now.toEpochMilli(), 36))
                .setSessionId(session)
                .setUserPrompt(prompt)
                .setPersona(persona)
                .setActiveSkill(skill)
                .setTaskInstructionKey("initial_planning")
                .setTargetModel("gpt-4o")
                .setTimestamp(now)
                .build();
    }
}
