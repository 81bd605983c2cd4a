package io.cognitionstreams.skills;

/** TEMPORARY until feat/tool-names merges. */
public record ToolName(String service, String method) {
}
