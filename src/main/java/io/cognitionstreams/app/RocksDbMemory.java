package io.cognitionstreams.app;

import java.util.Map;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;
import org.apache.kafka.streams.state.RocksDBConfigSetter;

/**
 * Every RocksDB store of the process in one memory budget: one block cache, least recently used first, that the
 * stores' index and filter blocks and their memtables are charged to as well. By default Kafka Streams gives each
 * store instance a cache of its own and up to three 16 MiB memtables, and the app opens dozens of them (each store
 * per task, each segment of a window store), so the off-heap memory grew with the tasks and the data, not with a
 * setting. With one cache the working set is what is used: an idle session's blocks leave it for the active ones'
 * and are read from disk again when it comes back.
 *
 * <p>The budget is the process's, set once by the first store opened ({@link #BUDGET_CONFIG}, bytes).
 */
public final class RocksDbMemory implements RocksDBConfigSetter {

    /** The configuration that sizes the budget, in bytes: the block cache, memtables included. */
    public static final String BUDGET_CONFIG = "cognition.rocksdb.memory.bytes";
    public static final long DEFAULT_BUDGET = 128L * 1024 * 1024;
    /** Of the budget, what memtables may take before they are flushed. */
    private static final double MEMTABLE_SHARE = 0.25;
    /** Of the budget, kept for index and filter blocks, so data blocks cannot push them out. */
    private static final double INDEX_SHARE = 0.1;
    private static final long MEMTABLE_BYTES = 4L * 1024 * 1024;

    private static Cache cache;
    private static WriteBufferManager writeBuffers;

    private static synchronized void open(long budget) {
        if (cache == null) {
            cache = new LRUCache(budget, -1, false, INDEX_SHARE);
            writeBuffers = new WriteBufferManager((long) (budget * MEMTABLE_SHARE), cache);
        }
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object budget = configs.get(BUDGET_CONFIG);
        open(budget == null ? DEFAULT_BUDGET : Long.parseLong(budget.toString()));
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(writeBuffers);
        options.setWriteBufferSize(MEMTABLE_BYTES);
        options.setMaxWriteBufferNumber(2);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and write buffer manager are the process's: they outlive any one store.
    }
}
