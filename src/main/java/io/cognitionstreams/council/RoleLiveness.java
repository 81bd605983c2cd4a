package io.cognitionstreams.council;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;

/**
 * Whether a role is alive, from its heartbeats on the council's clock (seed 003 section 8.5). A role is active from
 * a heartbeat until more than the timeout passes without another; a role never heard from is inactive.
 */
public final class RoleLiveness {

    private final Duration timeout;

    public RoleLiveness(Duration timeout) {
        this.timeout = timeout;
    }

    /** When an active role times out: its last heartbeat plus the timeout. Inactive roles have no deadline. */
    public Optional<Instant> deadline(RoleStatus status) {
        if (status.getStatus() != RoleState.ACTIVE || status.getLastHeartbeat() == null) {
            return Optional.empty();
        }
        return Optional.of(status.getLastHeartbeat().plus(timeout));
    }

    /**
     * The role's status after a heartbeat sent at {@code at}, with the council's clock at {@code clock}. A heartbeat
     * older than the timeout on arrival (a late record) moves last_heartbeat but does not revive the role: it was
     * already overdue. The status timestamp is when the status last changed.
     */
    public RoleStatus heartbeat(Optional<RoleStatus> current, String council, String role, Instant at,
                                Instant clock) {
        Instant last = current.map(RoleStatus::getLastHeartbeat)
                .filter(previous -> previous.isAfter(at)).orElse(at);
        RoleState state = clock.isAfter(last.plus(timeout)) ? RoleState.INACTIVE : RoleState.ACTIVE;
        boolean keepsSince = current.isPresent() && stateOf(current) == state;
        return RoleStatus.newBuilder()
                .setCouncilId(council)
                .setRole(role)
                .setStatus(state)
                .setLastHeartbeat(last)
                .setTimestamp(keepsSince ? current.get().getTimestamp() : at)
                .build();
    }

    /** A role's state, inactive when it was never heard from. */
    public static RoleState stateOf(Optional<RoleStatus> status) {
        return status.map(RoleStatus::getStatus).orElse(RoleState.INACTIVE);
    }

    /** The status of an active role whose deadline passed: inactive as of that deadline. */
    public RoleStatus timedOut(RoleStatus status) {
        return RoleStatus.newBuilder(status)
                .setStatus(RoleState.INACTIVE)
                .setTimestamp(deadline(status).orElseThrow())
                .build();
    }
}
