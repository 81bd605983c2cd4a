package io.cognitionstreams.routing;

/**
 * How much one model output may become. Without a bound one output of a few hundred kilobytes of marker lines
 * turned into tens of thousands of blocks, each on four channels, in one transaction that held up every other
 * session of its partition. An output over either bound is refused whole (a dead letter with the counts), never
 * routed in part: a half-routed answer would be worse than none.
 *
 * @param maxBlocks  blocks one output may have
 * @param maxRecords records one output may lead to: a record per block and channel, a call per EXECUTE block,
 *                   plus its redaction event and escalation
 */
public record RoutingLimits(int maxBlocks, int maxRecords) {

    public static final int DEFAULT_MAX_BLOCKS = 256;
    public static final int DEFAULT_MAX_RECORDS = 1024;

    public RoutingLimits {
        if (maxBlocks < 1 || maxRecords < 1) {
            throw new IllegalArgumentException("routing limits must be at least 1, were " + maxBlocks + " blocks and "
                    + maxRecords + " records");
        }
    }

    public static RoutingLimits defaults() {
        return new RoutingLimits(DEFAULT_MAX_BLOCKS, DEFAULT_MAX_RECORDS);
    }
}
