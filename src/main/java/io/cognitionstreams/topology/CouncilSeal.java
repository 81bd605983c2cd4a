package io.cognitionstreams.topology;

import io.cognitionstreams.schema.CouncilMessage;

/**
 * What every council message the app writes goes through just before council.messages (see {@link Outputs}): with
 * signatures required, the app's signature; otherwise nothing. One place, so no topology can send the council an
 * escalation the council would refuse as unsigned.
 */
@FunctionalInterface
public interface CouncilSeal {

    /** Leaves messages as they are: for topologies drawn or tested without signatures. */
    CouncilSeal NONE = message -> message;

    CouncilMessage seal(CouncilMessage message);
}
