package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.List;

import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.roles.RoleEndpoints;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The council: its roles, quorum, timeouts, clock and signatures. Options of `run`. */
final class CouncilOptions {

    @Option(names = "--council-roles", defaultValue = "prime,lite,codemind", split = ",", paramLabel = "ROLE",
            description = "Council roles that heartbeat, propose and vote (default: ${DEFAULT-VALUE}).")
    List<String> councilRoles;

    @Option(names = "--council-prime", defaultValue = "prime",
            description = "The council role whose vote breaks a tie (default: ${DEFAULT-VALUE}).")
    String councilPrime;

    @Option(names = "--council-quorum", defaultValue = "2",
            description = "Distinct roles a council decision needs; reduced to the active roles' count when fewer "
                    + "are active, never below 2 (default: ${DEFAULT-VALUE}).")
    int councilQuorum;

    @Option(names = "--council-heartbeat-timeout", defaultValue = "90s",
            description = "A council role with no heartbeat for longer is inactive (default: ${DEFAULT-VALUE}).")
    Duration councilHeartbeatTimeout;

    @Option(names = "--council-proposal-ttl", defaultValue = "5m",
            description = "A proposal undecided this long expires (default: ${DEFAULT-VALUE}).")
    Duration councilProposalTtl;

    @Option(names = "--council-tick", defaultValue = "5s",
            description = "How often the council checks the wall clock for deadlines no message has reached; 0s "
                    + "turns that off, for replays (default: ${DEFAULT-VALUE}).")
    Duration councilTick;

    @Option(names = "--council-max-clock-skew", defaultValue = "30s",
            description = "A council message stamped further ahead of this machine's clock is dead-lettered: it "
                    + "would move the council's clock past every other role's heartbeat (default: ${DEFAULT-VALUE}).")
    Duration councilMaxClockSkew;

    @Option(names = "--council-signatures", paramLabel = "off|required",
            converter = SignaturesConverter.class,
            description = "required: every council message must be signed by its sender's Ed25519 key (a role's on "
                    + "council.keys, the app's own senders' with --signing-key); unsigned, forged, wrongly keyed, "
                    + "replayed or stale ones are dead-lettered (default: required with --secure, else off).")
    CouncilSettings.Signatures councilSignatures;

    @Option(names = "--council-max-message-age", defaultValue = "5m",
            description = "With --council-signatures required, a council message stamped further behind this "
                    + "machine's clock is dead-lettered, and msg_ids are remembered this long against replays "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration councilMaxMessageAge;

    /**
     * @param workers the role workers this instance runs: their roles are council roles too
     * @param secure  whether --secure is on, which requires signatures unless --council-signatures says otherwise
     */
    CouncilSettings settings(RoleEndpoints workers, boolean secure) {
        return new CouncilSettings(CouncilRoleOptions.councilRoles(councilRoles, workers), councilPrime,
                councilQuorum, councilHeartbeatTimeout, councilProposalTtl, councilTick, councilMaxClockSkew,
                councilSignatures != null ? councilSignatures
                        : secure ? CouncilSettings.Signatures.REQUIRED : CouncilSettings.Signatures.OFF,
                councilMaxMessageAge);
    }

    /** {@code off} or {@code required}, as the docs write them. */
    static final class SignaturesConverter implements CommandLine.ITypeConverter<CouncilSettings.Signatures> {
        @Override
        public CouncilSettings.Signatures convert(String value) {
            return switch (value) {
                case "off" -> CouncilSettings.Signatures.OFF;
                case "required" -> CouncilSettings.Signatures.REQUIRED;
                default -> throw new CommandLine.TypeConversionException("'" + value + "' is not off or required");
            };
        }
    }
}
