package io.cognitionstreams.timetravel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.assembly.TaskInstructions.Stage;
import io.cognitionstreams.timetravel.StageContracts.Outcome;
import io.cognitionstreams.tokens.Tokenizers;

class StageContractsTest {

    @Test
    void eachTaskInstructionKeyHasTheStageOfSeed003() {
        StageContracts contracts = new StageContracts(TaskInstructions.defaults(new Tokenizers()));

        assertThat(contracts.stageOf("initial_planning")).contains(Stage.PLAN);
        assertThat(contracts.stageOf("refinement")).contains(Stage.REFINE);
        assertThat(contracts.stageOf("observer")).contains(Stage.OBSERVE);
        assertThat(contracts.stageOf("interruption_handling")).contains(Stage.ACT);
        assertThat(contracts.stageOf("verification")).contains(Stage.VERIFY);
        assertThat(contracts.stageOf("no_such_key")).isEmpty();
    }

    @Test
    void planNeedsAPlanBlockOutsideCodeFences() {
        assertThat(StageContracts.check(Stage.PLAN, "PLAN:\n1. build\n2. test").outcome()).isEqualTo(Outcome.PASSED);
        assertThat(StageContracts.check(Stage.PLAN, "Thinking first.\nPLAN: one step").outcome())
                .isEqualTo(Outcome.PASSED);

        StageContracts.Result missing = StageContracts.check(Stage.PLAN, "RESPONSE: done");
        assertThat(missing.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(missing.reason()).contains("PLAN: block");
        assertThat(StageContracts.check(Stage.PLAN, "```\nPLAN: quoted\n```\nRESPONSE: done").outcome())
                .isEqualTo(Outcome.RETRY);
        assertThat(StageContracts.check(Stage.PLAN, "Plan: lower case is not a marker").outcome())
                .isEqualTo(Outcome.RETRY);
    }

    @Test
    void refineNeedsAConfidenceAndEscalatesBelowThreshold() {
        StageContracts.Result confident = StageContracts.check(Stage.REFINE, "PLAN:\n1. a\nconfidence=0.8");
        assertThat(confident.outcome()).isEqualTo(Outcome.PASSED);
        assertThat(confident.confidence()).contains(0.8);
        assertThat(StageContracts.check(Stage.REFINE, "PLAN: a\nConfidence = .3").outcome())
                .as("0.3 itself is not below 0.3").isEqualTo(Outcome.PASSED);

        StageContracts.Result low = StageContracts.check(Stage.REFINE, "confidence=0.9 at first\nconfidence=0.2");
        assertThat(low.outcome()).as("the last confidence counts").isEqualTo(Outcome.ESCALATE);
        assertThat(low.confidence()).contains(0.2);
        assertThat(low.reason()).isEqualTo("confidence=0.2 is below 0.3");

        assertThat(StageContracts.check(Stage.REFINE, "PLAN: a\nI am fairly sure.").outcome())
                .isEqualTo(Outcome.RETRY);
        StageContracts.Result outOfRange = StageContracts.check(Stage.REFINE, "confidence=80");
        assertThat(outOfRange.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(outOfRange.reason()).isEqualTo("confidence=80 is outside 0 to 1");
    }

    @Test
    void verifyNeedsAVerdictAndItsFirstVerdictWordDecides() {
        assertThat(StageContracts.check(Stage.VERIFY, "VERIFY: success: all 12 checks pass").outcome())
                .isEqualTo(Outcome.PASSED);
        assertThat(StageContracts.check(Stage.VERIFY, "VERIFY: Tests passed, nothing failed").outcome())
                .isEqualTo(Outcome.PASSED);

        StageContracts.Result failed = StageContracts.check(Stage.VERIFY,
                "PLAN: check\nVERIFY: FAILED - 3 rows missing\nthe backfill stopped\nRESPONSE: hold");
        assertThat(failed.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(failed.reason()).isEqualTo("VERIFY reported a failure: FAILED - 3 rows missing");
        assertThat(StageContracts.check(Stage.VERIFY, "VERIFY: success\nVERIFY: the rollback failed").outcome())
                .as("a fail in any VERIFY block is a fail").isEqualTo(Outcome.RETRY);

        assertThat(StageContracts.check(Stage.VERIFY, "VERIFY: tag created locally").reason())
                .isEqualTo("the VERIFY: block says neither success nor fail");
        assertThat(StageContracts.check(Stage.VERIFY, "RESPONSE: all good").reason())
                .contains("needs a VERIFY: block");
        assertThat(StageContracts.check(Stage.VERIFY, "VERIFY: the failover succeeded").outcome())
                .as("failover is not a verdict word").isEqualTo(Outcome.PASSED);
    }

    @Test
    void observeAndActHaveNoContractHere() {
        assertThat(StageContracts.check(Stage.OBSERVE, "INTERRUPT: stop")).isEqualTo(
                new StageContracts.Result(Outcome.NONE, "", Optional.empty()));
        assertThat(StageContracts.check(Stage.ACT, "anything").outcome()).isEqualTo(Outcome.NONE);
    }

    @Test
    void aHostileRunOfDigitsIsReadInLinearTime() {
        String digits = "confidence=" + "9".repeat(200_000) + "x";
        long start = System.nanoTime();
        assertThat(StageContracts.check(Stage.REFINE, digits).outcome()).isEqualTo(Outcome.RETRY);
        assertThat(System.nanoTime() - start).isLessThan(2_000_000_000L);
    }
}
