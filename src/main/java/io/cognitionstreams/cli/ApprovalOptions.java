package io.cognitionstreams.cli;

import java.time.Duration;

import io.cognitionstreams.gatekeeper.ApprovalRule;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Which tool calls wait for the council on `run` (docs/council.md, "What the council decides"). */
final class ApprovalOptions {

    @Option(names = "--approval", defaultValue = "risky", paramLabel = "never|risky|always",
            converter = PolicyConverter.class,
            description = "Which approved tool calls wait for the council's vote before they run: never (none, as "
                    + "before the council decided anything), risky (shell.run, tools their MCP server does not mark "
                    + "readOnlyHint, and what a skill's approval list names) or always (default: ${DEFAULT-VALUE}).")
    ApprovalRule.Policy approval;

    @Option(names = "--approval-timeout", paramLabel = "DURATION",
            description = "How long a call waits for its council's decision before the gatekeeper denies it itself "
                    + "(default: the council's --council-proposal-ttl plus a minute).")
    Duration approvalTimeout;

    /** The gatekeeper's settings with this policy; {@code proposalTtl} is the council's. */
    GatekeeperSettings apply(GatekeeperSettings gatekeeper, Duration proposalTtl) {
        return gatekeeper.withApproval(approval, approvalTimeout != null ? approvalTimeout
                : proposalTtl.plus(Duration.ofMinutes(1)));
    }

    static final class PolicyConverter implements CommandLine.ITypeConverter<ApprovalRule.Policy> {
        @Override
        public ApprovalRule.Policy convert(String value) {
            try {
                return ApprovalRule.Policy.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
