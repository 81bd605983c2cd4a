package io.cognitionstreams.serde;

import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;

/**
 * Avro 1.12 refuses to instantiate generated classes outside trusted packages ("Forbidden ... not trusted").
 * Ours are trusted once, here, before any serde is built, on top of whatever Avro already trusts; the decoder's
 * allocation limits ({@link AvroLimits}) are installed at the same moment, for the same reason.
 */
public final class TrustedPackages {

    private static final String OURS = "io.cognitionstreams.";
    private static boolean installed;

    private TrustedPackages() {
    }

    public static synchronized void allowGeneratedClasses() {
        if (installed) {
            return;
        }
        ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
        ClassSecurityValidator.setGlobal(type -> type.getName().startsWith(OURS) || previous.isTrusted(type));
        AvroLimits.install();
        installed = true;
    }
}
