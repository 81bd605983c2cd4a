package io.cognitionstreams.serde.json;

/**
 * A JSON line that does not fit its Avro schema, or a record that cannot be printed as JSON.
 *
 * <p>The message is {@code <path>: <detail>}, where the path is the JSON path of the offending
 * value ({@code $} is the top-level object), for example
 * {@code $.payload.history[2].role: expected one of [SYSTEM, USER, ASSISTANT, TOOL], got "robot"}.
 */
public final class JsonAvroException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final String detail;

    public JsonAvroException(String path, String detail) {
        this(path, detail, null);
    }

    public JsonAvroException(String path, String detail, Throwable cause) {
        super(path + ": " + detail, cause);
        this.path = path;
        this.detail = detail;
    }

    /** JSON path of the offending value, starting with {@code $}. */
    public String getPath() {
        return path;
    }

    /** What was wrong there, without the path. */
    public String getDetail() {
        return detail;
    }
}
