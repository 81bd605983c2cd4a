package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;

class RoleLivenessTest {

    private final RoleLiveness liveness = new RoleLiveness(Duration.ofSeconds(90));

    @Test
    void aRoleNeverHeardFromIsInactiveAndItsFirstHeartbeatMakesItActive() {
        assertThat(RoleLiveness.stateOf(Optional.empty())).isEqualTo(RoleState.INACTIVE);

        RoleStatus status = liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(0), at(0));

        assertThat(status.getStatus()).isEqualTo(RoleState.ACTIVE);
        assertThat(status.getLastHeartbeat()).isEqualTo(at(0));
        assertThat(status.getTimestamp()).isEqualTo(at(0));
        assertThat(liveness.deadline(status)).contains(at(90));
    }

    @Test
    void aHeartbeatKeepsTheRoleActiveAndItsSince() {
        RoleStatus first = liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(0), at(0));

        RoleStatus second = liveness.heartbeat(Optional.of(first), COUNCIL, "lite", at(30), at(30));

        assertThat(second.getStatus()).isEqualTo(RoleState.ACTIVE);
        assertThat(second.getLastHeartbeat()).isEqualTo(at(30));
        assertThat(second.getTimestamp()).as("active since the first heartbeat").isEqualTo(at(0));
        assertThat(liveness.deadline(second)).contains(at(120));
    }

    @Test
    void timingOutMakesItInactiveAsOfTheDeadlineAndTheNextHeartbeatRevivesIt() {
        RoleStatus active = liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(0), at(0));

        RoleStatus inactive = liveness.timedOut(active);
        assertThat(inactive.getStatus()).isEqualTo(RoleState.INACTIVE);
        assertThat(inactive.getTimestamp()).isEqualTo(at(90));
        assertThat(inactive.getLastHeartbeat()).isEqualTo(at(0));
        assertThat(liveness.deadline(inactive)).isEmpty();

        RoleStatus revived = liveness.heartbeat(Optional.of(inactive), COUNCIL, "lite", at(200), at(200));
        assertThat(revived.getStatus()).isEqualTo(RoleState.ACTIVE);
        assertThat(revived.getTimestamp()).isEqualTo(at(200));
    }

    @Test
    void aHeartbeatAlreadyOverdueWhenItArrivesDoesNotReviveTheRole() {
        RoleStatus inactive = liveness.timedOut(liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(0), at(0)));

        RoleStatus late = liveness.heartbeat(Optional.of(inactive), COUNCIL, "lite", at(60), at(200));

        assertThat(late.getStatus()).isEqualTo(RoleState.INACTIVE);
        assertThat(late.getLastHeartbeat()).isEqualTo(at(60));
        assertThat(late.getTimestamp()).as("still inactive since the timeout").isEqualTo(at(90));
    }

    @Test
    void ninetySecondsIsNotMoreThanNinetySeconds() {
        assertThat(liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(10), at(100)).getStatus())
                .isEqualTo(RoleState.ACTIVE);
        assertThat(liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(10), at(100.001)).getStatus())
                .isEqualTo(RoleState.INACTIVE);
    }

    @Test
    void anOlderHeartbeatNeverMovesLastHeartbeatBack() {
        RoleStatus active = liveness.heartbeat(Optional.empty(), COUNCIL, "lite", at(100), at(100));

        RoleStatus older = liveness.heartbeat(Optional.of(active), COUNCIL, "lite", at(50), at(100));

        assertThat(older.getLastHeartbeat()).isEqualTo(at(100));
    }
}
