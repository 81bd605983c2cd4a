package io.cognitionstreams.cli;

import java.util.Locale;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads sizes the way people write them: 1048576, 512KiB, 128MiB, 2GiB (k, m and g alone are binary too). */
final class ByteSizeConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        String text = value.strip().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
        try {
            if (text.isEmpty()) {
                throw new NumberFormatException();
            }
            char unit = text.charAt(text.length() - 1);
            int shift = switch (unit) {
                case 'k' -> 10;
                case 'm' -> 20;
                case 'g' -> 30;
                default -> 0;
            };
            long amount = Long.parseLong(shift == 0 ? text : text.substring(0, text.length() - 1).strip());
            if (amount < 0 || amount > Long.MAX_VALUE >> shift) {
                throw new NumberFormatException();
            }
            return amount << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a size such as 64MiB, 1GiB or 1048576");
        }
    }
}
