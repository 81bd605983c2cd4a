package io.cognitionstreams.redaction;

/**
 * What the PII scrub detects. The name is the type in the tag ({@code [REDACTED:EMAIL]}) and the key in
 * {@link Redaction#counts()}. When two detections overlap, the one declared first here wins: the more specific
 * finding (a password inside a URL) beats the broader one (the e-mail-like {@code password@host} around it).
 */
public enum PiiType {
    PRIVATE_KEY,
    JWT,
    URL_PASSWORD,
    API_KEY,
    IBAN,
    CARD,
    EMAIL,
    SSN,
    IPV6,
    MAC,
    IPV4,
    PHONE
}
