package io.cognitionstreams.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/** The Kafka side of {@link AclProfile}: its grants as ACL bindings, and created through an admin client. */
public final class KafkaAcls {

    private KafkaAcls() {
    }

    /** One ALLOW binding per grant, for {@code User:<principal>} from any host. */
    public static List<AclBinding> bindings(AclProfile profile) {
        return profile.grants().stream().map(grant -> new AclBinding(
                new ResourcePattern(ResourceType.valueOf(grant.resource().type().name()), grant.resource().name(),
                        PatternType.valueOf(grant.resource().pattern().name())),
                new AccessControlEntry("User:" + grant.principal(), "*",
                        AclOperation.valueOf(grant.operation().name()), AclPermissionType.ALLOW))).toList();
    }

    /**
     * Creates the bindings the cluster lacks; those it has are left alone, so applying twice changes nothing.
     * Bindings the profile does not name are not removed: an operator may have added them.
     *
     * @return how many bindings were new
     */
    public static int apply(Admin admin, AclProfile profile)
            throws ExecutionException, InterruptedException, TimeoutException {
        Set<AclBinding> existing = new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values()
                .get(30, TimeUnit.SECONDS));
        List<AclBinding> missing = new ArrayList<>();
        for (AclBinding binding : bindings(profile)) {
            if (!existing.contains(binding)) {
                missing.add(binding);
            }
        }
        if (!missing.isEmpty()) {
            admin.createAcls(missing).all().get(30, TimeUnit.SECONDS);
        }
        return missing.size();
    }
}
