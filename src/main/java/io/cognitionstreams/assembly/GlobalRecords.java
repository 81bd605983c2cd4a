package io.cognitionstreams.assembly;

import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.topology.GlobalView;

/**
 * The assembly's global stores kept decoded: every request reads the active skill, the identity, a persona and,
 * for the tools index, every skill and tool. Read from the stores, each of those was decoded again per request (a
 * third of a request's work in a profile of a backlog, with the tool index's lines).
 */
record GlobalRecords(GlobalView<Skill> skills, GlobalView<Identity> identity, GlobalView<Persona> personas,
                     GlobalView<ToolDescriptor> tools) {

    GlobalRecords() {
        this(new GlobalView<>(), new GlobalView<>(), new GlobalView<>(), new GlobalView<>());
    }
}
