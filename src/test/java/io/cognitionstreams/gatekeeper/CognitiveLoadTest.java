package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class CognitiveLoadTest {

    @Test
    void skillsCountOnceInTheOrderFirstUsed() {
        ActiveSkills active = new ActiveSkills(Optional.of("ops"));

        assertThat(active.activate("git")).isTrue();
        assertThat(active.activate("writer")).isTrue();
        assertThat(active.activate("git")).isFalse();

        assertThat(active.count()).isEqualTo(2);
        assertThat(active.skills()).containsExactly("git", "writer");
    }

    @Test
    void theRootCallerIsNeverCounted() {
        ActiveSkills active = new ActiveSkills(Optional.of("ops"));

        assertThat(active.activate("ops")).isFalse();
        active.activate("git");

        assertThat(active.count()).isEqualTo(1);
        assertThat(active.skills()).containsExactly("git");
    }

    @Test
    void withoutARootCallerEveryNameCounts() {
        ActiveSkills active = new ActiveSkills(Optional.empty());

        active.activate("ops");

        assertThat(active.count()).isEqualTo(1);
    }

    @Test
    void resetForgetsEverySkill() {
        ActiveSkills active = new ActiveSkills(Optional.empty());
        active.activate("git");
        active.activate("writer");

        active.reset();

        assertThat(active.count()).isZero();
        assertThat(active.skills()).isEmpty();
        assertThat(active.activate("git")).isTrue();
    }

    @Test
    void theSimpleFormRestoresTheSameStateWithoutTheRoot() {
        ActiveSkills active = new ActiveSkills(Optional.of("ops"));
        List.of("researcher", "git", "writer").forEach(active::activate);

        ActiveSkills restored = ActiveSkills.restore(Optional.of("ops"), active.skills());
        ActiveSkills fromOldData = ActiveSkills.restore(Optional.of("ops"), List.of("git", "ops", "git"));

        assertThat(restored.skills()).containsExactly("researcher", "git", "writer");
        assertThat(fromOldData.skills()).containsExactly("git");
    }

    @Test
    void theSimpleFormIsASnapshot() {
        ActiveSkills active = new ActiveSkills(Optional.empty());
        active.activate("git");
        List<String> snapshot = active.skills();

        active.activate("writer");

        assertThat(snapshot).containsExactly("git");
    }

    @Test
    void overloadedMeansMoreThanTheThreshold() {
        CognitiveLoad load = CognitiveLoad.defaults();

        assertThat(load.threshold()).isEqualTo(5);
        assertThat(load.overloaded(5)).isFalse();
        assertThat(load.overloaded(6)).isTrue();
        assertThat(new CognitiveLoad(2).overloaded(3)).isTrue();
        assertThat(new CognitiveLoad(0).overloaded(0)).isFalse();
        assertThat(new CognitiveLoad(0).overloaded(1)).isTrue();
    }

    @Test
    void aNegativeThresholdIsRefused() {
        assertThatThrownBy(() -> new CognitiveLoad(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void theWarningSaysHowManySkillsAreActiveAndSuggestsAReset() {
        assertThat(CognitiveLoad.warning(7, 5))
                .startsWith("[COGNITIVE LOAD WARNING] 7 skills are active in this session (limit 5).")
                .contains("reset the session's active skills");
        assertThat(CognitiveLoad.warning(1, 0)).startsWith("[COGNITIVE LOAD WARNING] 1 skill is active");
    }
}
