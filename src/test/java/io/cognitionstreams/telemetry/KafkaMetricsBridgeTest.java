package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class KafkaMetricsBridgeTest {

    @Test
    void aClientWithTheBridgeStillRegistersItsMetricsWithJmx() throws Exception {
        Map<String, Object> settings = new HashMap<>(KafkaMetricsBridge.clientSettings(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1")));
        settings.put(ProducerConfig.CLIENT_ID_CONFIG, "bridged-and-jmx");

        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(
                    new ObjectName("kafka.producer:type=producer-metrics,client-id=bridged-and-jmx"))).isTrue();
        }
    }

    @Test
    void reportersTheSettingsNameAreKeptAndNoOthersAdded() {
        Map<String, Object> settings = KafkaMetricsBridge.clientSettings(Map.of(
                CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, "com.example.Reporter"));

        assertThat(settings.get(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG))
                .isEqualTo("com.example.Reporter," + KafkaMetricsBridge.class.getName());
    }
}
