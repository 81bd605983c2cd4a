package io.cognitionstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

/** The decoded view a global store's readers use: current after every change, and derived once per change. */
class GlobalViewTest {

    private final GlobalView<String> view = new GlobalView<>();

    @Test
    void holdsWhatWasPutAndNotWhatWasDeletedInKeyOrder() {
        view.put("shell", "v1");
        view.put("git", "v1");
        view.put("git", "v2");
        view.delete("shell");
        view.delete("never-there");

        assertThat(view.get("git")).contains("v2");
        assertThat(view.get("shell")).isEmpty();
        assertThat(view.values()).containsExactly("v2");

        view.put("a", "first");
        assertThat(view.values()).as("a change is seen by the next read").containsExactly("first", "v2");
    }

    @Test
    void derivesOncePerChangeNotPerReadNorPerRecordPut() {
        AtomicInteger builds = new AtomicInteger();
        Function<List<String>, String> joined = values -> {
            builds.incrementAndGet();
            return String.join(",", values);
        };
        for (int i = 0; i < 1_000; i++) {
            view.put("k" + String.format("%04d", i), "v" + i); // as a restore does, with no reader in between
        }

        String first = view.derived(joined);
        assertThat(first).startsWith("v0,v1,v2,").endsWith(",v999");
        assertThat(view.<String>derived(joined)).isSameAs(first);
        assertThat(builds).hasValue(1);

        view.delete("k0000");
        assertThat(view.<String>derived(joined)).startsWith("v1,v2,");
        view.delete("k0000");
        assertThat(view.<String>derived(joined)).as("a delete of nothing is no change").startsWith("v1,v2,");
        assertThat(builds).hasValue(2);
    }
}
