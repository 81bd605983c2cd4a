package io.cognitionstreams.broker;

/** The embedded broker could not start; the message says why and what to do about it. */
public class BrokerStartException extends RuntimeException {

    public BrokerStartException(String message) {
        super(message);
    }

    public BrokerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
