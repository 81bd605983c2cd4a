package io.cognitionstreams.health;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.DefaultHostResolver;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.health.TransactionOutcomes.Outcome;

/**
 * Writes the markers a transaction coordinator lost, as it would have written them: WriteTxnMarkers to the
 * partition's leader with the outcome, producer epoch, coordinator epoch and transactions version it recorded. The
 * Admin API only aborts (KIP-664's abortTransaction); a transaction its coordinator committed needs its COMMIT
 * markers, or the records it committed would be lost. Needs CLUSTER_ACTION, like an abort.
 */
final class TransactionMarkers implements AutoCloseable {

    private final NetworkClient client;
    private final Metrics metrics = new Metrics();
    private final Time time = Time.SYSTEM;
    private final Duration timeout;

    TransactionMarkers(Map<String, Object> clientConfig, Duration timeout) {
        this.timeout = timeout;
        AdminClientConfig config = new AdminClientConfig(clientConfig);
        LogContext logContext = new LogContext("[transaction markers] ");
        this.client = ClientUtils.createNetworkClient(config, "cognition-transaction-markers", metrics,
                "cognition-transaction-markers", logContext, new ApiVersions(), time, 1,
                (int) timeout.toMillis(), null, new ManualMetadataUpdater(), new DefaultHostResolver(), null, null);
    }

    /** Writes {@code outcome}'s marker for {@code open} on its partition, whose leader is {@code leader}. */
    void write(OpenTransaction open, Outcome outcome, Node leader) throws IOException {
        WriteTxnMarkersRequestData data = new WriteTxnMarkersRequestData();
        data.markers().add(new WriteTxnMarkersRequestData.WritableTxnMarker()
                .setProducerId(open.producerId())
                .setProducerEpoch((short) outcome.markerEpoch())
                .setCoordinatorEpoch(outcome.coordinatorEpoch())
                .setTransactionResult(outcome.commit())
                .setTransactionVersion((byte) outcome.transactionVersion())
                .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                        .setName(open.topic())
                        .setPartitionIndexes(List.of(open.partition())))));
        if (!NetworkClientUtils.awaitReady(client, leader, time, timeout.toMillis())) {
            throw new IOException("could not connect to " + leader + " within " + timeout);
        }
        ClientRequest request = client.newClientRequest(leader.idString(), new WriteTxnMarkersRequest.Builder(data),
                time.milliseconds(), true, (int) timeout.toMillis(), null);
        ClientResponse response = NetworkClientUtils.sendAndReceive(client, request, time);
        WriteTxnMarkersResponseData answer = ((WriteTxnMarkersResponse) response.responseBody()).data();
        for (WriteTxnMarkersResponseData.WritableTxnMarkerResult marker : answer.markers()) {
            for (WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topic : marker.topics()) {
                for (WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult partition : topic.partitions()) {
                    Errors error = Errors.forCode(partition.errorCode());
                    if (error != Errors.NONE) {
                        throw new KafkaException("the " + (outcome.commit() ? "COMMIT" : "ABORT") + " marker for "
                                + open + " was refused: " + error.name(), error.exception());
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        client.close();
        metrics.close();
    }
}
