package io.cognitionstreams.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.model.OpenAiChatModel;
import io.cognitionstreams.model.ReplayModel;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.roles.RoleEndpoints;
import io.cognitionstreams.roles.RoleWorker;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

/**
 * The council role workers of {@code run --council-role}: one per role, each with its model client, its
 * reachability probe and, with signatures required, its key (made once under the state directory and registered on
 * council.keys as the role's when the topic holds another, with the governance login that may write it).
 */
final class CouncilRoles {

    /** The consumer group (and transactional id prefix) of a role worker: {@code <app id>-council-role-<role>}. */
    static final String GROUP = "-council-role-";
    private static final Logger LOG = LoggerFactory.getLogger(CouncilRoles.class);
    private static final int PROBE_TIMEOUT_MS = 2000;

    private CouncilRoles() {
    }

    static List<RoleWorker> build(Settings settings, Topics topics, Map<String, Object> client,
                                  Map<String, Object> governance) {
        RoleEndpoints roles = settings.roleWorkers();
        List<RoleWorker> workers = new ArrayList<>();
        for (RoleEndpoints.Endpoint endpoint : roles.endpoints()) {
            Optional<Ed25519.Key> key = settings.council().signatures() == CouncilSettings.Signatures.REQUIRED
                    ? Optional.of(key(settings, topics, governance, endpoint.role())) : Optional.empty();
            ModelClient model = endpoint.url().<ModelClient>map(url -> new OpenAiChatModel(url,
                            settings.model().apiKey().orElse(null), endpoint.model().orElse(null),
                            settings.model().timeout()))
                    .orElseGet(ReplayModel::bundled);
            String modelName = endpoint.model().orElse("gpt-4o");
            RoleWorker worker = new RoleWorker(client, settings.applicationId() + GROUP + endpoint.role(),
                    InstanceId.of(settings.stateDir()), topics, model, probe(endpoint.url()),
                    new RoleWorker.Settings(endpoint.role(), endpoint.model().orElse(null), roles.councils(),
                            roles.heartbeat(), roles.promptBudget(), settings.council().proposalTtl(),
                            settings.model().timeout()),
                    key, new Tokenizers().forModel(modelName), settings.tuning().sessionTimeout());
            LOG.info("council role {} votes with {} in councils {}{}", endpoint.role(),
                    endpoint.url().map(url -> url + endpoint.model().map(m -> " (" + m + ")").orElse(""))
                            .orElse("the replay model"), roles.councils(),
                    key.map(k -> ", signing with key " + k.id()).orElse(""));
            workers.add(worker);
        }
        return workers;
    }

    /** The role's key, registered as the role's on council.keys unless it already is. */
    private static Ed25519.Key key(Settings settings, Topics topics, Map<String, Object> governance, String role) {
        Path file = settings.stateDir().resolve("keys").resolve("council-" + role + "-ed25519.pem");
        Ed25519.Key key = new Ed25519.Key(Ed25519.loadOrCreate(file));
        Optional<CouncilKey> registered = TopicReader.latestValue(governance, topics.councilKeys.name(), role)
                .map(value -> topics.councilKeys.valueSerde().deserializer().deserialize(topics.councilKeys.name(),
                        value));
        if (registered.map(CouncilKey::getKeyId).filter(key.id()::equals).isEmpty()) {
            registered.ifPresent(other -> LOG.warn("council role {}: replacing its key {} on {} with the role "
                    + "worker's {} ({})", role, other.getKeyId(), Topics.COUNCIL_KEYS, key.id(), file));
            Publisher.publish(governance, topics.councilKeys, Map.of(role,
                    CouncilSignatures.keyRecord(role, key.publicKey(), Instant.now())));
        }
        return key;
    }

    /** Whether the endpoint's host takes a connection: what "reachable" means for a heartbeat. */
    private static BooleanSupplier probe(Optional<String> url) {
        if (url.isEmpty()) {
            return () -> true;
        }
        URI uri = URI.create(url.get());
        int port = uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
        return () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(uri.getHost(), port), PROBE_TIMEOUT_MS);
                return true;
            } catch (IOException e) {
                return false;
            }
        };
    }
}
