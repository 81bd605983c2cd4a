package io.cognitionstreams.cli;

import picocli.CommandLine.Option;

/** Whether `run` previews answers as the model writes them. */
final class StreamOptions {

    @Option(names = "--model-stream",
            description = "Preview each answer's RESPONSE text as the model writes it, redacted, on the chat channels' "
                    + "stream topics (channel.<chat>.stream; a tenant's on channel.<tenant>.<chat>.stream): at most "
                    + "once, a preview only, the complete blocks still reach the channel topics as without it. "
                    + "`cognition tail --follow --topic channel.cli_chat.stream` shows it (docs/model.md).")
    boolean stream;
}
