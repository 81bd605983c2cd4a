package io.cognitionstreams.assembly;

import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;

/** A tool result as its TOOL message in the session's history says it: the output, or how the call ended. */
final class ToolMessages {

    private ToolMessages() {
    }

    static String content(ToolResult result) {
        // An MCP tool that answers with structured content only has empty text: the JSON is its output then.
        String output = result.getText() != null && !result.getText().isEmpty() ? result.getText()
                : result.getJson();
        ToolStatus status = result.getStatus() != null ? result.getStatus()
                : result.getSuccess() ? ToolStatus.SUCCEEDED : ToolStatus.FAILED;
        if (status == ToolStatus.SUCCEEDED) {
            return output != null ? output : "(no output)";
        }
        StringBuilder content = new StringBuilder(status.name());
        if (result.getError() != null) {
            content.append(": ").append(result.getError());
        }
        if (output != null) {
            content.append('\n').append(output);
        }
        return content.toString();
    }
}
