package io.cognitionstreams.governance;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;

/**
 * Who may change identity (seed 003 section 3.3): the creator, Azrael, alone; or Azrael and Prime together for an
 * emergency security patch. Prime alone, a persona or a request never can. Enforced where identity is read, on top
 * of the Kafka ACLs that should let only the governance principal write cognition.identity.
 *
 * <p>The seed's other path, a self-aware GAIA stack (stability score &gt;= 0.9 for 24 h), is not implemented: no
 * such measurement exists in this system, so that path stays closed.
 */
public final class IdentityGovernance {

    public static final String CREATOR = "azrael";
    public static final String PRIME = "prime";
    public static final String KEY = Topics.IDENTITY_KEY;

    private IdentityGovernance() {
    }

    /**
     * The check of every copy of identity: a governed version may replace the current one, and nothing deletes it.
     * A tombstone carries no authors, so it could not be governed; identity changes only by a new version.
     */
    public static final GlobalMirror.Check<Identity> CHECK = GlobalMirror.Check.undeletable(
            IdentityGovernance::refuse, "identity cannot be deleted: only a new version authored by " + CREATOR
                    + " (or " + CREATOR + " and " + PRIME + ") changes it");

    /** For the identity global store: why a version may not replace the current one, if it may not. */
    public static Optional<String> refuse(String key, Identity identity) {
        if (!KEY.equals(key)) {
            return Optional.of("identity is keyed '" + KEY + "', not '" + key + "'");
        }
        try {
            requireGoverned(identity);
            return Optional.empty();
        } catch (InvalidRecordException e) {
            return Optional.of(e.getMessage());
        }
    }

    public static Identity requireGoverned(Identity identity) {
        if (identity == null) {
            throw new InvalidRecordException("identity record is null");
        }
        Set<String> authors = Set.copyOf(identity.getAuthors().stream()
                .map(author -> author.strip().toLowerCase(Locale.ROOT)).toList());
        boolean creatorAlone = authors.equals(Set.of(CREATOR));
        boolean emergency = authors.equals(Set.of(CREATOR, PRIME));
        if (!creatorAlone && !emergency) {
            throw new InvalidRecordException("identity version " + identity.getVersion() + " authored by "
                    + identity.getAuthors() + " is not governed: only " + List.of(CREATOR) + " or "
                    + List.of(CREATOR, PRIME) + " may change identity");
        }
        if (identity.getText().isBlank()) {
            throw new InvalidRecordException("identity version " + identity.getVersion() + " is empty");
        }
        return identity;
    }
}
