package io.cognitionstreams.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.cognitionstreams.assembly.MemoryIndex;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;

/**
 * How much episodic memory's recall loses when prompts and memories are embedded with the static table instead of
 * all-MiniLM-L6-v2: over {@link AgentMemoryCorpus}'s seeded memories and queries, the top 3 of each fast path
 * against the exact top 3 by MiniLM cosine over the same texts (the truth). Heavy (it embeds every text with
 * MiniLM, about 30 s for 11,000), so a main, never a test:
 * {@code bin/test-main io.cognitionstreams.bench.MemoryQualityBench [memories] [queries] [seed]}.
 *
 * <p>Paths: {@code static} embeds both sides with the static table; {@code hybrid K} shortlists K by static cosine
 * and re-ranks them by the static query against the memories' stored MiniLM vectors, which is all a request could
 * afford (its own MiniLM vector is the cost being avoided). Besides strict recall@3, a hit within 0.02 or 0.05 of
 * the exact third-best MiniLM cosine is counted as as-good-as, since a templated corpus has many near-ties. Last,
 * the recall@3 of {@link MemoryIndex}'s binary shortlist (what it does past 20,000 memories) against its exact scan,
 * with MiniLM vectors at the corpus size and with static vectors at 100,000; and what keeping memories and sending
 * prompts in 8 bits ({@link Vectors#toInt8}, as the app does) costs against the exact floats.
 */
public final class MemoryQualityBench {

    private static final String SCOPE = "bench";

    private MemoryQualityBench() {
    }

    public static void main(String[] args) {
        int memoryCount = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int queryCount = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 42;
        List<String> memories = AgentMemoryCorpus.memories(seed, memoryCount);
        List<String> queries = AgentMemoryCorpus.queries(seed, queryCount);

        long start = System.nanoTime();
        float[][] exactMemories = miniLm(memories);
        float[][] exactQueries = miniLm(queries);
        double miniLmMs = (System.nanoTime() - start) / 1e6 / (memoryCount + queryCount);
        StaticEmbedder fast = StaticEmbedder.cachedIn(StaticEmbedder.defaultCache());
        for (String query : queries) {
            fast.embed(query);
        }
        start = System.nanoTime();
        float[][] fastMemories = staticVectors(fast, memories);
        float[][] fastQueries = staticVectors(fast, queries);
        double staticUs = (System.nanoTime() - start) / 1e3 / (memoryCount + queryCount);

        Map<String, Integer> slots = new HashMap<>();
        for (int i = 0; i < memoryCount; i++) {
            slots.put(memories.get(i), i);
        }
        MemoryIndex exactIndex = index(memories, exactMemories);
        MemoryIndex fastIndex = index(memories, fastMemories);
        int[] shortlists = {32, 64, 256};
        Tally pure = new Tally();
        Tally[] hybrid = {new Tally(), new Tally(), new Tally()};
        double[] shortlistRecall = new double[shortlists.length];
        for (int q = 0; q < queryCount; q++) {
            List<MemoryIndex.Hit> truth = exactIndex.nearest(SCOPE, exactQueries[q], 3, -1, Long.MAX_VALUE);
            float[] exactQuery = exactQueries[q];
            pure.add(texts(fastIndex.nearest(SCOPE, fastQueries[q], 3, -1, Long.MAX_VALUE)), truth, exactQuery,
                    slots, exactMemories);
            for (int s = 0; s < shortlists.length; s++) {
                List<String> shortlist = texts(fastIndex.nearest(SCOPE, fastQueries[q], shortlists[s], -1,
                        Long.MAX_VALUE));
                shortlistRecall[s] += overlap(shortlist, truth);
                MemoryIndex rerank = new MemoryIndex();
                for (String text : shortlist) {
                    rerank.put(text, SCOPE, text, 0, exactMemories[slots.get(text)]);
                }
                hybrid[s].add(texts(rerank.nearest(SCOPE, fastQueries[q], 3, -1, Long.MAX_VALUE)), truth, exactQuery,
                        slots, exactMemories);
            }
        }
        System.out.printf("%,d memories, %,d queries, seed %d; MiniLM %.2f ms a text, static %.1f µs a text%n",
                memoryCount, queryCount, seed, miniLmMs, staticUs);
        System.out.println("| path | recall@3 | within 0.02 | within 0.05 | exact best in top 3 | MiniLM cosine kept |");
        System.out.println("|---|---|---|---|---|---|");
        pure.print("static", queryCount);
        for (int s = 0; s < shortlists.length; s++) {
            hybrid[s].print("hybrid, shortlist " + shortlists[s], queryCount);
        }
        for (int s = 0; s < shortlists.length; s++) {
            System.out.printf("static top %d holds %.3f of the exact top 3%n", shortlists[s],
                    shortlistRecall[s] / queryCount);
        }
        // The index's binary shortlist, forced on at this size, against its exact scan of the same vectors.
        System.out.printf("MiniLM, binary shortlist of %d at %,d memories: recall@3 %.3f%n", MemoryIndex.CANDIDATES,
                memoryCount, shortlistRecall(exactIndex, exactMemories, exactQueries, memories));
        // Memories and prompts as the app keeps and sends them, in 8 bits, against the exact floats.
        MemoryIndex eightBits = index(memories, int8(exactMemories));
        Tally kept = new Tally();
        for (int q = 0; q < queryCount; q++) {
            kept.add(texts(eightBits.nearest(SCOPE, Vectors.int8RoundTrip(exactQueries[q]), 3, -1, Long.MAX_VALUE)),
                    exactIndex.nearest(SCOPE, exactQueries[q], 3, -1, Long.MAX_VALUE), exactQueries[q], slots,
                    exactMemories);
        }
        System.out.println("| path | recall@3 | within 0.02 | within 0.05 | exact best in top 3 | MiniLM cosine kept |");
        kept.print("MiniLM in 8 bits, memories and prompts", queryCount);
        MemoryIndex staticEightBits = index(memories, int8(fastMemories));
        double staticKept = 0;
        for (float[] query : fastQueries) {
            staticKept += overlap(texts(staticEightBits.nearest(SCOPE, Vectors.int8RoundTrip(query), 3, -1,
                    Long.MAX_VALUE)), fastIndex.nearest(SCOPE, query, 3, -1, Long.MAX_VALUE));
        }
        System.out.printf("static in 8 bits against static floats at %,d memories: recall@3 %.3f%n", memoryCount,
                staticKept / queryCount);
        List<String> many = AgentMemoryCorpus.memories(seed, 100_000);
        float[][] manyVectors = staticVectors(fast, many);
        System.out.printf("static, binary shortlist of %d at %,d memories: recall@3 %.3f%n", MemoryIndex.CANDIDATES,
                many.size(), shortlistRecall(index(many, manyVectors), manyVectors, fastQueries, many));
    }

    private static double shortlistRecall(MemoryIndex exact, float[][] vectors, float[][] queries,
                                          List<String> texts) {
        MemoryIndex approximate = new MemoryIndex(0, MemoryIndex.CANDIDATES);
        for (int i = 0; i < texts.size(); i++) {
            approximate.put("m" + i, SCOPE, texts.get(i), 0, vectors[i]);
        }
        double recall = 0;
        for (float[] query : queries) {
            recall += overlap(texts(approximate.nearest(SCOPE, query, 3, -1, Long.MAX_VALUE)),
                    exact.nearest(SCOPE, query, 3, -1, Long.MAX_VALUE));
        }
        return recall / queries.length;
    }

    private static float[][] int8(float[][] vectors) {
        float[][] kept = new float[vectors.length][];
        for (int i = 0; i < vectors.length; i++) {
            kept[i] = Vectors.int8RoundTrip(vectors[i]);
        }
        return kept;
    }

    /** Per query: overlap with the truth, and how good the chosen memories are by MiniLM's own cosine. */
    private static final class Tally {
        double strict;
        double within2;
        double within5;
        double best;
        double kept;

        void add(List<String> chosen, List<MemoryIndex.Hit> truth, float[] query, Map<String, Integer> slots,
                 float[][] exactMemories) {
            strict += overlap(chosen, truth);
            float third = truth.get(truth.size() - 1).similarity();
            double chosenSum = 0;
            double truthSum = 0;
            for (MemoryIndex.Hit hit : truth) {
                truthSum += hit.similarity();
            }
            for (String text : chosen) {
                float similarity = dot(query, exactMemories[slots.get(text)]);
                chosenSum += similarity;
                within2 += similarity >= third - 0.02 ? 1.0 / truth.size() : 0;
                within5 += similarity >= third - 0.05 ? 1.0 / truth.size() : 0;
            }
            best += chosen.contains(truth.get(0).text()) ? 1 : 0;
            kept += chosenSum / truthSum;
        }

        void print(String path, int queries) {
            System.out.printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f |%n", path, strict / queries, within2 / queries,
                    within5 / queries, best / queries, kept / queries);
        }
    }

    private static double overlap(List<String> chosen, List<MemoryIndex.Hit> truth) {
        return truth.stream().filter(hit -> chosen.contains(hit.text())).count() / (double) truth.size();
    }

    private static List<String> texts(List<MemoryIndex.Hit> hits) {
        return hits.stream().map(MemoryIndex.Hit::text).toList();
    }

    private static MemoryIndex index(List<String> texts, float[][] vectors) {
        MemoryIndex index = new MemoryIndex();
        for (int i = 0; i < texts.size(); i++) {
            index.put("m" + i, SCOPE, texts.get(i), 0, vectors[i]);
        }
        return index;
    }

    private static float[][] miniLm(List<String> texts) {
        List<float[]> vectors = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i += 64) {
            for (float[] vector : MiniLmEmbedder.shared().embed(texts.subList(i, Math.min(i + 64, texts.size())))) {
                vectors.add(Vectors.unit(vector));
            }
        }
        return vectors.toArray(float[][]::new);
    }

    private static float[][] staticVectors(StaticEmbedder embedder, List<String> texts) {
        float[][] vectors = new float[texts.size()][];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = embedder.embed(texts.get(i));
        }
        return vectors;
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
