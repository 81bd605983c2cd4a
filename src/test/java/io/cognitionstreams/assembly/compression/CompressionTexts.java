package io.cognitionstreams.assembly.compression;

/** Texts the compression tests share. */
final class CompressionTexts {

    /** Ten sentences on one topic and one off it: the extractive tier can shorten it and should drop the last. */
    static final String TEN_SENTENCES = String.join(" ",
            "The packet assembler builds a cognition packet from each request.",
            "It counts every header field in the target model's own tokens.",
            "Identity, persona and task instruction each have a token limit.",
            "A field over its limit is compressed before the packet is sent.",
            "The local summarizer keeps the most central sentences of the field.",
            "If it cannot reach the limit, a small model rewrites the field.",
            "A larger model gets one last try before the packet is rejected.",
            "Rejected packets go to the dead-letter topic with the reason.",
            "Compressed fields carry a tag so developers notice them.",
            "The weather was pleasant on the day this design was written.");

    private CompressionTexts() {
    }
}
