package io.cognitionstreams.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

class PartitionBookTest {

    private static final int BUDGET = 3000;

    @Test
    void commitsTheFirstRecordNotDoneAndListsTheDoneOnesAbove() {
        PartitionBook<String> book = PartitionBook.fresh();
        for (long offset = 10; offset < 20; offset++) {
            assertThat(book.fetched(offset)).isTrue();
        }
        book.done(12, "out-12");
        book.done(15, "out-15");
        PartitionBook.Commit<String> commit = book.plan(BUDGET).orElseThrow();
        assertThat(commit.base()).isEqualTo(10);
        assertThat(commit.end()).isEqualTo(20);
        assertThat(commit.outputs()).containsExactly("out-12", "out-15");
        OffsetMetadata.Above above = OffsetMetadata.decode(commit.metadata()).orElseThrow();
        for (long offset = 10; offset < 22; offset++) {
            assertThat(above.done(offset - 10)).as("offset %d", offset).isEqualTo(offset == 12 || offset == 15);
        }
        book.committed(commit);
        assertThat(book.plan(BUDGET)).as("nothing changed").isEmpty();

        for (long offset = 10; offset < 20; offset++) {
            if (offset != 12 && offset != 15) {
                book.done(offset, "out-" + offset);
            }
        }
        PartitionBook.Commit<String> all = book.plan(BUDGET).orElseThrow();
        assertThat(all.base()).isEqualTo(20);
        assertThat(all.metadata()).isEmpty();
        assertThat(all.outputs()).hasSize(8).doesNotContain("out-12", "out-15");
        book.committed(all);
        assertThat(book.held()).isZero();
    }

    @Test
    void offsetsNoRecordHoldsCountAsDone() {
        // Transaction markers take offsets the consumer never returns: 11 and 13 here.
        PartitionBook<String> book = PartitionBook.fresh();
        for (long offset : new long[] {10, 12, 14, 16}) {
            book.fetched(offset);
        }
        book.done(12, "a");
        book.done(16, "b");
        PartitionBook.Commit<String> commit = book.plan(BUDGET).orElseThrow();
        assertThat(commit.base()).isEqualTo(10);
        OffsetMetadata.Above above = OffsetMetadata.decode(commit.metadata()).orElseThrow();
        assertThat(above.done(1)).isTrue();
        assertThat(above.done(3)).isTrue();
        assertThat(above.done(4)).isFalse();
        assertThat(commit.metadata()).isEqualTo("p1:7,3.1");
    }

    @Test
    void aNewOwnerSkipsWhatTheLastCommitSaysIsDone() {
        PartitionBook<String> first = PartitionBook.fresh();
        for (long offset = 0; offset < 10; offset++) {
            first.fetched(offset);
        }
        for (long offset : new long[] {1, 2, 5, 9}) {
            first.done(offset, "out-" + offset);
        }
        PartitionBook.Commit<String> commit = first.plan(BUDGET).orElseThrow();
        first.committed(commit);

        // The owner dies; the next reads from the committed offset on, with more records beyond.
        PartitionBook<String> next = PartitionBook.restored(commit.base(),
                OffsetMetadata.decode(commit.metadata()).orElseThrow());
        List<Long> processed = new ArrayList<>();
        for (long offset = commit.base(); offset < 12; offset++) {
            if (next.fetched(offset)) {
                processed.add(offset);
            }
        }
        assertThat(processed).containsExactly(0L, 3L, 4L, 6L, 7L, 8L, 10L, 11L);
    }

    @Test
    void aCommitBeforeTheStragglersAreFetchedAgainStillSpeaksForThem() {
        PartitionBook<String> book = PartitionBook.restored(100,
                OffsetMetadata.decode(OffsetMetadata.encode(OffsetMetadata.Above.of(10, new long[] {4}))).orElseThrow());
        // Not done by the last commit: 100 and 104. Fetched and done: 100 only, so far.
        assertThat(book.fetched(100)).isTrue();
        assertThat(book.fetched(101)).isFalse();
        book.done(100, "out-100");
        PartitionBook.Commit<String> commit = book.plan(BUDGET).orElseThrow();
        assertThat(commit.base()).as("104 is still to do").isEqualTo(104);
        assertThat(commit.end()).isEqualTo(110);
        OffsetMetadata.Above above = OffsetMetadata.decode(commit.metadata()).orElseThrow();
        for (long offset = 105; offset < 110; offset++) {
            assertThat(above.done(offset - 104)).isTrue();
        }
        book.committed(commit);
        assertThat(book.fetched(102)).isFalse();
        assertThat(book.fetched(103)).isFalse();
        assertThat(book.fetched(104)).isTrue();
        assertThat(book.fetched(105)).isFalse();
    }

    @Test
    void holdsBackDoneRecordsWhoseListWouldNotFit() {
        PartitionBook<String> book = PartitionBook.fresh();
        for (long offset = 0; offset < 400; offset++) {
            book.fetched(offset);
        }
        // Every other record done: 200 runs not done, far too many for 40 characters.
        for (long offset = 1; offset < 400; offset += 2) {
            book.done(offset, "out-" + offset);
        }
        PartitionBook.Commit<String> commit = book.plan(40).orElseThrow();
        assertThat(commit.metadata().length()).isLessThanOrEqualTo(40);
        assertThat(book.cramped()).isTrue();
        assertThat(commit.base()).isZero();
        assertThat(commit.offsets()).allMatch(offset -> offset < commit.end());
        assertThat(commit.offsets()).hasSizeGreaterThan(0).hasSizeLessThan(200);
        book.committed(commit);

        // The stragglers finish: everything goes.
        for (long offset = 0; offset < 400; offset += 2) {
            book.done(offset, "out-" + offset);
        }
        PartitionBook.Commit<String> rest = book.plan(40).orElseThrow();
        assertThat(book.cramped()).isFalse();
        assertThat(rest.base()).isEqualTo(400);
        assertThat(rest.offsets().size() + commit.offsets().size()).isEqualTo(400);
    }

    /**
     * A partition's life through random completions, budgets and owner changes: every record is processed until
     * a commit says it is done, and its outputs are committed exactly once.
     */
    @Test
    void everyRecordIsCommittedExactlyOnceAcrossOwners() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            int records = 50 + random.nextInt(300);
            int budget = 8 + random.nextInt(60);
            Set<Long> committedOutputs = new HashSet<>();
            long committedBase = 0;
            String committedMetadata = "";
            PartitionBook<Long> book = PartitionBook.fresh();
            long position = 0;
            List<Long> running = new ArrayList<>();
            int steps = 0;
            while (committedBase < records) {
                assertThat(++steps).as("round %d makes progress", round).isLessThan(100_000);
                int action = random.nextInt(10);
                if (action < 4 && position < records && (!book.cramped() || random.nextInt(4) == 0)) {
                    if (book.fetched(position)) {
                        running.add(position);
                    }
                    position++;
                } else if (action < 7 && !running.isEmpty()) {
                    long offset = running.remove(random.nextInt(running.size()));
                    book.done(offset, offset);
                } else if (action < 9) {
                    var plan = book.plan(budget);
                    if (plan.isPresent()) {
                        assertThat(plan.get().metadata().length()).isLessThanOrEqualTo(budget);
                        for (Long output : plan.get().outputs()) {
                            assertThat(committedOutputs.add(output)).as("output of %d committed twice", output)
                                    .isTrue();
                        }
                        book.committed(plan.get());
                        committedBase = plan.get().base();
                        committedMetadata = plan.get().metadata();
                    }
                } else {
                    // The owner dies or the partition moves: the next owner starts from the last commit.
                    book = PartitionBook.restored(committedBase,
                            OffsetMetadata.decode(committedMetadata).orElseThrow());
                    position = committedBase;
                    running.clear();
                }
            }
            assertThat(committedOutputs).hasSize(records);
        }
    }
}
