package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RestoreLogTest {

    private static final TopicPartition SESSIONS = new TopicPartition("app-assembly-session-state-changelog", 1);
    private static final TopicPartition HISTORY = new TopicPartition("app-assembly-session-history-changelog", 1);
    private static final TopicPartition SKILLS = new TopicPartition("cognition.skills", 0);

    @Test
    void namesWhatEachStoreRestoredAndWhichTaskStoresStartedFromTheBeginningOfTheirChangelog() {
        RestoreLog log = new RestoreLog("assembly");
        log.onRestoreStart(SESSIONS, "session-state", 0, 1_200);
        log.onBatchRestored(SESSIONS, "session-state", 1_199, 1_200);
        log.onRestoreStart(HISTORY, "session-history", 9_000, 9_040);
        log.onBatchRestored(HISTORY, "session-history", 9_039, 40);
        // A global store reads its own topic from the start at every start: not a task that lost its place.
        log.onRestoreStart(SKILLS, "skills", 0, 5);
        log.onBatchRestored(SKILLS, "skills", 4, 5);
        // Started, with nothing to read (past its checkpoint only a commit marker): not named.
        log.onRestoreStart(SESSIONS, "waiting-turns", 300, 301);

        assertThat(log.running()).startsWith("assembly running (")
                .contains("having restored 1245 records into {session-history=40, session-state=1200, skills=5} in ")
                .endsWith("; from the start of their changelogs: [session-state]");
        assertThat(log.restoredSoFar()).isZero();
        assertThat(log.running()).as("the next time counts afresh").endsWith("nothing to restore");
    }
}
