package io.cognitionstreams.serde.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Conversion;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;

import io.cognitionstreams.serde.TrustedPackages;

/**
 * Converts Avro records to and from one line of "natural" JSON: the form {@code produce} reads and
 * {@code tail} prints (see docs/json-format.md). This is not Avro's own JSON encoding.
 *
 * <ul>
 *   <li>A record is an object with its fields in schema order. On input a missing field takes its
 *       schema default, a missing field without default is an error, and an unknown field is an
 *       error.
 *   <li>A union {@code ["null", T]} (either order) is the value of T or {@code null}, unwrapped.
 *       Other unions have no JSON form and are an error.
 *   <li>An enum is its symbol, a string. A map is an object, an array an array.
 *   <li>{@code bytes} and {@code fixed} are standard base64 strings (RFC 4648, with padding).
 *   <li>{@code timestamp-millis} is printed as an ISO-8601 instant in UTC
 *       ({@code 2026-11-22T10:00:00Z}, {@code 2026-11-22T10:00:00.123Z}); input takes that, an
 *       ISO-8601 instant with an offset, or epoch milliseconds as an integer.
 *   <li>{@code int} and {@code long} take JSON integers only: no strings, no {@code 3.0}.
 *       {@code float} and {@code double} take any JSON number, and the strings {@code "NaN"},
 *       {@code "Infinity"} and {@code "-Infinity"}, which is how they are printed.
 *   <li>{@code boolean} is {@code true}/{@code false}, {@code string} a JSON string.
 * </ul>
 *
 * <p>Every failure is a {@link JsonAvroException} naming the JSON path of the offending value.
 *
 * <p>Generated classes are created through their {@link SpecificData} model, which resolves
 * nested record and enum classes by name: since Avro 1.12 their package must be trusted, which
 * loading this class does ({@link TrustedPackages}).
 *
 * <p>Thread-safe: all state is immutable.
 */
public final class JsonAvro {

    /**
     * What a hostile line can make the parser hold or recurse into (docs/json-format.md states them). Jackson
     * 2.21's defaults, pinned so an upgrade cannot move them silently.
     */
    private static final StreamReadConstraints LIMITS =
            StreamReadConstraints.builder()
                    .maxNestingDepth(1_000)
                    .maxStringLength(20_000_000)
                    .maxNumberLength(1_000)
                    .maxNameLength(50_000)
                    .build();

    private static final JsonMapper MAPPER =
            JsonMapper.builder(JsonFactory.builder().streamReadConstraints(LIMITS).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    // Non-integral numbers stay doubles (DoubleNode), not BigDecimal: BigDecimal has no -0.0.
                    .build();

    private static final Pattern SOURCE =
            Pattern.compile("\\[Source: [^\\]]*?; (line: \\d+, column: \\d+)\\]");
    private static final int MAX_SHOWN = 60;

    static {
        TrustedPackages.allowGeneratedClasses();
    }

    private JsonAvro() {}

    // ------------------------------------------------------------------------------------------
    // JSON -> Avro

    /**
     * Parses one JSON object into a generated record class.
     *
     * @throws JsonAvroException if the text is not one JSON object that fits the class's schema
     */
    public static <T extends SpecificRecord> T fromJson(String json, Class<T> type) {
        Objects.requireNonNull(type, "type");
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        return type.cast(read(json, schema, model));
    }

    /**
     * Parses one JSON object into a {@link GenericData.Record} of {@code schema}. Values are Avro's
     * generic ones: {@code timestamp-millis} fields hold a {@code Long}, enums a
     * {@link GenericData.EnumSymbol}.
     *
     * @throws JsonAvroException if the text is not one JSON object that fits the schema
     * @throws IllegalArgumentException if {@code schema} is not a record schema
     */
    public static GenericRecord fromJson(String json, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("not a record schema: " + schema.getFullName());
        }
        return (GenericRecord) read(json, schema, GenericData.get());
    }

    private static Object read(String json, Schema schema, GenericData model) {
        if (json == null || json.isBlank()) {
            throw new JsonAvroException("$", "empty input, expected a JSON object");
        }
        JsonNode node;
        try (JsonParser parser = MAPPER.createParser(json)) {
            node = MAPPER.readTree(parser);
            if (node != null && parser.nextToken() != null) {
                throw new JsonAvroException(
                        "$", "unexpected content after the JSON value" + at(parser.currentTokenLocation()));
            }
        } catch (JsonProcessingException e) {
            throw new JsonAvroException(pathOf(e), "invalid JSON: " + describe(e), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does not fail
        }
        if (node == null || node.isMissingNode()) {
            throw new JsonAvroException("$", "empty input, expected a JSON object");
        }
        if (!node.isObject()) {
            throw new JsonAvroException("$", "expected a JSON object, got " + shown(node));
        }
        return readRecord(node, schema, "$", model);
    }

    private static Object readRecord(JsonNode node, Schema schema, String path, GenericData model) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (schema.getField(name) == null) {
                throw new JsonAvroException(
                        member(path, name), "unknown field, known fields: " + fieldNames(schema));
            }
        }
        IndexedRecord record = (IndexedRecord) model.newRecord(null, schema);
        for (Schema.Field field : schema.getFields()) {
            String fieldPath = member(path, field.name());
            JsonNode value = node.get(field.name());
            if (value == null) {
                if (!field.hasDefaultValue()) {
                    throw new JsonAvroException(fieldPath, "required field missing");
                }
                // Copied: the model caches default values, and arrays and maps are mutable.
                record.put(field.pos(), model.deepCopy(field.schema(), model.getDefaultValue(field)));
            } else {
                record.put(field.pos(), readValue(value, field.schema(), fieldPath, model));
            }
        }
        return record;
    }

    private static Object readValue(JsonNode node, Schema schema, String path, GenericData model) {
        boolean nullable = false;
        if (schema.getType() == Schema.Type.UNION) {
            schema = nullableBranch(schema, path);
            nullable = true;
        }
        if (node.isNull()) {
            if (nullable || schema.getType() == Schema.Type.NULL) {
                return null;
            }
            throw mismatch(path, schema, false, node);
        }
        Object raw = readRaw(node, schema, path, model, nullable);
        LogicalType logicalType = schema.getLogicalType();
        if (logicalType != null) {
            Conversion<?> conversion = model.getConversionFor(logicalType);
            if (conversion != null) {
                try {
                    return Conversions.convertToLogicalType(raw, schema, logicalType, conversion);
                } catch (AvroRuntimeException | IllegalArgumentException | ArithmeticException e) {
                    throw new JsonAvroException(
                            path, "expected " + expected(schema, nullable) + ", got " + shown(node), e);
                }
            }
        }
        return raw;
    }

    private static Object readRaw(
            JsonNode node, Schema schema, String path, GenericData model, boolean nullable) {
        switch (schema.getType()) {
            case RECORD:
                if (!node.isObject()) {
                    throw mismatch(path, schema, nullable, node);
                }
                return readRecord(node, schema, path, model);
            case ENUM:
                if (!node.isTextual() || !schema.hasEnumSymbol(node.textValue())) {
                    throw mismatch(path, schema, nullable, node);
                }
                return model.createEnum(node.textValue(), schema);
            case ARRAY:
                {
                    if (!node.isArray()) {
                        throw mismatch(path, schema, nullable, node);
                    }
                    List<Object> list = new ArrayList<>(node.size());
                    for (int i = 0; i < node.size(); i++) {
                        list.add(readValue(node.get(i), schema.getElementType(), path + "[" + i + "]", model));
                    }
                    return list;
                }
            case MAP:
                {
                    if (!node.isObject()) {
                        throw mismatch(path, schema, nullable, node);
                    }
                    Map<String, Object> map = new LinkedHashMap<>();
                    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> entry = it.next();
                        map.put(
                                entry.getKey(),
                                readValue(
                                        entry.getValue(), schema.getValueType(), member(path, entry.getKey()), model));
                    }
                    return map;
                }
            case STRING:
                if (!node.isTextual()) {
                    throw mismatch(path, schema, nullable, node);
                }
                return node.textValue();
            case BYTES:
                return ByteBuffer.wrap(base64(node, schema, path, nullable));
            case FIXED:
                {
                    byte[] bytes = base64(node, schema, path, nullable);
                    if (bytes.length != schema.getFixedSize()) {
                        throw new JsonAvroException(
                                path,
                                "expected " + expected(schema, nullable) + ", got " + bytes.length + " bytes");
                    }
                    return model.createFixed(null, bytes, schema);
                }
            case INT:
                if (!node.isIntegralNumber()) {
                    throw mismatch(path, schema, nullable, node);
                }
                if (!node.canConvertToInt()) {
                    throw outOfRange(path, schema, nullable, node);
                }
                return node.intValue();
            case LONG:
                if (isTimestampMillis(schema) && node.isTextual()) {
                    return parseInstant(node, schema, path, nullable);
                }
                if (!node.isIntegralNumber()) {
                    throw mismatch(path, schema, nullable, node);
                }
                if (!node.canConvertToLong()) {
                    throw outOfRange(path, schema, nullable, node);
                }
                return node.longValue();
            case FLOAT:
                {
                    float value = (float) parseFloating(node, schema, path, nullable, true);
                    return value;
                }
            case DOUBLE:
                return parseFloating(node, schema, path, nullable, false);
            case BOOLEAN:
                if (!node.isBoolean()) {
                    throw mismatch(path, schema, nullable, node);
                }
                return node.booleanValue();
            case NULL:
                throw mismatch(path, schema, nullable, node);
            default:
                throw new JsonAvroException(path, "unsupported schema type " + schema.getType());
        }
    }

    private static byte[] base64(JsonNode node, Schema schema, String path, boolean nullable) {
        if (!node.isTextual()) {
            throw mismatch(path, schema, nullable, node);
        }
        try {
            return Base64.getDecoder().decode(node.textValue());
        } catch (IllegalArgumentException e) {
            throw new JsonAvroException(
                    path,
                    "expected " + expected(schema, nullable) + ", got " + shown(node) + " (" + e.getMessage()
                            + ")",
                    e);
        }
    }

    private static long parseInstant(JsonNode node, Schema schema, String path, boolean nullable) {
        Instant instant;
        try {
            instant = Instant.parse(node.textValue());
        } catch (DateTimeException e) {
            throw mismatch(path, schema, nullable, node);
        }
        if (instant.getNano() % 1_000_000 != 0) {
            throw new JsonAvroException(
                    path,
                    "expected " + expected(schema, nullable) + " with at most millisecond precision, got "
                            + shown(node));
        }
        try {
            return instant.toEpochMilli();
        } catch (ArithmeticException e) {
            throw outOfRange(path, schema, nullable, node);
        }
    }

    private static double parseFloating(
            JsonNode node, Schema schema, String path, boolean nullable, boolean isFloat) {
        if (node.isTextual()) {
            switch (node.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    throw mismatch(path, schema, nullable, node);
            }
        }
        if (!node.isNumber()) {
            throw mismatch(path, schema, nullable, node);
        }
        double value = node.doubleValue();
        if (Double.isInfinite(value) || (isFloat && Float.isInfinite((float) value))) {
            throw new JsonAvroException(
                    path, "expected " + expected(schema, nullable) + ", got a number out of range");
        }
        return value;
    }

    private static Schema nullableBranch(Schema union, String path) {
        List<Schema> types = union.getTypes();
        if (types.size() == 2) {
            if (types.get(0).getType() == Schema.Type.NULL) {
                return types.get(1);
            }
            if (types.get(1).getType() == Schema.Type.NULL) {
                return types.get(0);
            }
        }
        throw new JsonAvroException(
                path, "unsupported union " + union + ": only [\"null\", T] unions have a JSON form");
    }

    // ------------------------------------------------------------------------------------------
    // Avro -> JSON

    /**
     * Prints a record as one line of compact JSON, fields in schema order, every field present
     * (null ones as {@code null}), map keys sorted.
     *
     * @throws JsonAvroException if the record holds a value its schema does not allow (a null in a
     *     non-nullable field, for instance)
     */
    public static String toJson(IndexedRecord record) {
        Objects.requireNonNull(record, "record");
        GenericData model =
                record instanceof SpecificRecordBase
                        ? ((SpecificRecordBase) record).getSpecificData()
                        : GenericData.get();
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = MAPPER.getFactory().createGenerator(out)) {
            writeValue(generator, record, record.getSchema(), "$", model);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void writeValue(
            JsonGenerator g, Object value, Schema schema, String path, GenericData model)
            throws IOException {
        boolean nullable = false;
        if (schema.getType() == Schema.Type.UNION) {
            schema = nullableBranch(schema, path);
            nullable = true;
        }
        if (value == null) {
            if (nullable || schema.getType() == Schema.Type.NULL) {
                g.writeNull();
                return;
            }
            throw new JsonAvroException(path, "expected " + expected(schema, false) + ", record holds null");
        }
        value = toRaw(value, schema, path, model);
        switch (schema.getType()) {
            case RECORD:
                {
                    IndexedRecord record = as(IndexedRecord.class, value, schema, path);
                    g.writeStartObject();
                    for (Schema.Field field : schema.getFields()) {
                        g.writeFieldName(field.name());
                        writeValue(g, record.get(field.pos()), field.schema(), member(path, field.name()), model);
                    }
                    g.writeEndObject();
                    return;
                }
            case ENUM:
                {
                    String symbol = value.toString();
                    if (!schema.hasEnumSymbol(symbol)) {
                        throw new JsonAvroException(
                                path, "expected " + expected(schema, nullable) + ", record holds " + symbol);
                    }
                    g.writeString(symbol);
                    return;
                }
            case ARRAY:
                {
                    Collection<?> items = as(Collection.class, value, schema, path);
                    g.writeStartArray();
                    int i = 0;
                    for (Object item : items) {
                        writeValue(g, item, schema.getElementType(), path + "[" + i++ + "]", model);
                    }
                    g.writeEndArray();
                    return;
                }
            case MAP:
                {
                    Map<?, ?> map = as(Map.class, value, schema, path);
                    Map<String, Object> sorted = new TreeMap<>();
                    for (Map.Entry<?, ?> entry : map.entrySet()) {
                        sorted.put(String.valueOf(entry.getKey()), entry.getValue());
                    }
                    g.writeStartObject();
                    for (Map.Entry<String, Object> entry : sorted.entrySet()) {
                        g.writeFieldName(entry.getKey());
                        writeValue(
                                g, entry.getValue(), schema.getValueType(), member(path, entry.getKey()), model);
                    }
                    g.writeEndObject();
                    return;
                }
            case STRING:
                g.writeString(as(CharSequence.class, value, schema, path).toString());
                return;
            case BYTES:
                {
                    byte[] bytes;
                    if (value instanceof byte[]) {
                        bytes = (byte[]) value;
                    } else {
                        ByteBuffer buffer = as(ByteBuffer.class, value, schema, path).duplicate();
                        bytes = new byte[buffer.remaining()];
                        buffer.get(bytes);
                    }
                    g.writeString(Base64.getEncoder().encodeToString(bytes));
                    return;
                }
            case FIXED:
                g.writeString(
                        Base64.getEncoder().encodeToString(as(GenericFixed.class, value, schema, path).bytes()));
                return;
            case INT:
                g.writeNumber(as(Integer.class, value, schema, path));
                return;
            case LONG:
                {
                    long number = as(Long.class, value, schema, path);
                    if (isTimestampMillis(schema)) {
                        g.writeString(Instant.ofEpochMilli(number).toString());
                    } else {
                        g.writeNumber(number);
                    }
                    return;
                }
            case FLOAT:
                writeFloating(g, as(Float.class, value, schema, path));
                return;
            case DOUBLE:
                writeFloating(g, as(Double.class, value, schema, path));
                return;
            case BOOLEAN:
                g.writeBoolean(as(Boolean.class, value, schema, path));
                return;
            case NULL:
                throw new JsonAvroException(path, "expected null, record holds " + value);
            default:
                throw new JsonAvroException(path, "unsupported schema type " + schema.getType());
        }
    }

    /** A logical-type value (an Instant, say) back to its Avro representation (a long). */
    private static Object toRaw(Object value, Schema schema, String path, GenericData model) {
        LogicalType logicalType = schema.getLogicalType();
        if (logicalType == null) {
            return value;
        }
        Conversion<?> conversion = model.getConversionByClass(value.getClass(), logicalType);
        if (conversion != null) {
            try {
                return Conversions.convertToRawType(value, schema, logicalType, conversion);
            } catch (AvroRuntimeException | IllegalArgumentException | ArithmeticException e) {
                throw new JsonAvroException(path, "cannot print " + value + ": " + e.getMessage(), e);
            }
        }
        if (value instanceof Instant && isTimestampMillis(schema)) {
            try {
                return ((Instant) value).toEpochMilli();
            } catch (ArithmeticException e) {
                throw new JsonAvroException(path, "timestamp out of range: " + value, e);
            }
        }
        return value;
    }

    private static void writeFloating(JsonGenerator g, double value) throws IOException {
        if (Double.isNaN(value)) {
            g.writeString("NaN");
        } else if (Double.isInfinite(value)) {
            g.writeString(value > 0 ? "Infinity" : "-Infinity");
        } else {
            g.writeNumber(value);
        }
    }

    private static void writeFloating(JsonGenerator g, float value) throws IOException {
        if (Float.isNaN(value) || Float.isInfinite(value)) {
            writeFloating(g, (double) value);
        } else {
            g.writeNumber(value);
        }
    }

    private static <V> V as(Class<V> type, Object value, Schema schema, String path) {
        if (!type.isInstance(value)) {
            throw new JsonAvroException(
                    path,
                    "expected " + expected(schema, false) + ", record holds a "
                            + value.getClass().getName());
        }
        return type.cast(value);
    }

    // ------------------------------------------------------------------------------------------
    // Messages and paths

    private static boolean isTimestampMillis(Schema schema) {
        return schema.getLogicalType() instanceof LogicalTypes.TimestampMillis;
    }

    private static JsonAvroException mismatch(
            String path, Schema schema, boolean nullable, JsonNode node) {
        return new JsonAvroException(
                path, "expected " + expected(schema, nullable) + ", got " + shown(node));
    }

    private static JsonAvroException outOfRange(
            String path, Schema schema, boolean nullable, JsonNode node) {
        return new JsonAvroException(
                path, "expected " + expected(schema, nullable) + ", got " + shown(node) + " (out of range)");
    }

    private static String expected(Schema schema, boolean nullable) {
        String what;
        switch (schema.getType()) {
            case RECORD:
                what = "object (" + schema.getName() + ")";
                break;
            case ENUM:
                what = "one of " + schema.getEnumSymbols();
                break;
            case ARRAY:
                what = "array";
                break;
            case MAP:
                what = "object (map)";
                break;
            case BYTES:
                what = "base64 string";
                break;
            case FIXED:
                what = "base64 string of " + schema.getFixedSize() + " bytes";
                break;
            case LONG:
                what =
                        isTimestampMillis(schema)
                                ? "timestamp (ISO-8601 instant string or epoch millis integer)"
                                : "long";
                break;
            default:
                what = schema.getType().getName();
        }
        return nullable ? what + " or null" : what;
    }

    private static String shown(JsonNode node) {
        if (node.isObject()) {
            return "object";
        }
        if (node.isArray()) {
            return "array";
        }
        String text = node.isFloatingPointNumber() ? decimal(node.doubleValue()) : node.toString();
        return text.length() <= MAX_SHOWN ? text : text.substring(0, MAX_SHOWN) + "...";
    }

    /** A parsed non-integral number as a person would write it: 1795341600000.0, not 1.7953416E12. */
    private static String decimal(double value) {
        double magnitude = Math.abs(value);
        if (value == 0 || !Double.isFinite(value) || magnitude < 1e-6 || magnitude >= 1e21) {
            return Double.toString(value);
        }
        String plain = BigDecimal.valueOf(value).toPlainString();
        return plain.indexOf('.') >= 0 ? plain : plain + ".0";
    }

    private static String fieldNames(Schema schema) {
        return schema.getFields().stream()
                .map(Schema.Field::name)
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /** {@code path.name}, or {@code path['name']} when the name is not a plain identifier. */
    static String member(String path, String name) {
        if (isPlainName(name)) {
            return path + "." + name;
        }
        return path + "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']";
    }

    /**
     * {@code [A-Za-z_][A-Za-z0-9_]*}, checked by hand: every field of every record read gets a path, and a regex
     * matcher per field was a fifth of the cost of reading a line while `produce` warms up.
     */
    private static boolean isPlainName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean letter = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
            if (!letter && (i == 0 || c < '0' || c > '9')) {
                return false;
            }
        }
        return !name.isEmpty();
    }

    private static String pathOf(JsonProcessingException e) {
        if (!(e.getProcessor() instanceof JsonParser)) {
            return "$";
        }
        List<String> segments = new ArrayList<>();
        for (JsonStreamContext c = ((JsonParser) e.getProcessor()).getParsingContext();
                c != null && !c.inRoot();
                c = c.getParent()) {
            if (c.inArray()) {
                segments.add("[" + Math.max(c.getCurrentIndex(), 0) + "]");
            } else if (c.getCurrentName() != null) {
                segments.add(member("", c.getCurrentName()));
            }
        }
        StringBuilder path = new StringBuilder("$");
        for (int i = segments.size() - 1; i >= 0; i--) {
            path.append(segments.get(i));
        }
        return path.toString();
    }

    private static String describe(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        int cut = message.indexOf('\n');
        if (cut >= 0) {
            message = message.substring(0, cut);
        }
        // Jackson names the (redacted) source in nested locations: keep only line and column.
        message = SOURCE.matcher(message).replaceAll("[$1]");
        return message + at(e.getLocation());
    }

    private static String at(JsonLocation location) {
        if (location == null || location.getColumnNr() <= 0) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
}
