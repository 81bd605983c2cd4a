package io.cognitionstreams.gatekeeper;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import io.cognitionstreams.skills.PermissionSet;
import io.cognitionstreams.skills.SkillDefinition;

/**
 * The skills global store seen as a {@link SkillRegistry}: each stored Avro skill becomes a domain
 * {@link SkillDefinition}
 * whose permissions are compiled once and reused until that skill's permission list changes, so a check never
 * recompiles. The cache is keyed by the permission list itself rather than by version or timestamp: a skill
 * republished with new permissions under the same version is still seen. One instance per processor: not
 * thread-safe.
 */
final class SkillRegistryStore implements SkillRegistry {

    private record Compiled(List<String> permissions, PermissionSet set, List<String> retrySafe,
                            PermissionSet retrySafeSet, List<String> approval, PermissionSet approvalSet) {
    }

    private final ReadOnlyKeyValueStore<String, io.cognitionstreams.schema.Skill> store;
    private final Map<String, Compiled> compiled = new HashMap<>();

    SkillRegistryStore(ReadOnlyKeyValueStore<String, io.cognitionstreams.schema.Skill> store) {
        this.store = store;
    }

    @Override
    public Optional<SkillDefinition> find(String name) {
        io.cognitionstreams.schema.Skill stored = store.get(name);
        if (stored == null) {
            compiled.remove(name);
            return Optional.empty();
        }
        Compiled permissions = compiled.get(name);
        if (permissions == null || !permissions.permissions().equals(stored.getPermissions())
                || !permissions.retrySafe().equals(stored.getRetrySafe())
                || !permissions.approval().equals(stored.getApproval())) {
            permissions = new Compiled(List.copyOf(stored.getPermissions()),
                    PermissionSet.compile(stored.getPermissions()), List.copyOf(stored.getRetrySafe()),
                    PermissionSet.compile(stored.getRetrySafe()), List.copyOf(stored.getApproval()),
                    PermissionSet.compile(stored.getApproval()));
            compiled.put(name, permissions);
        }
        return Optional.of(new SkillDefinition(stored.getName(), stored.getVersion(), stored.getDescription(),
                permissions.set(), stored.getRequiredRefs(), stored.getProtocol(), permissions.retrySafeSet(),
                permissions.approvalSet()));
    }
}
