package komorium.runtime;

/**
 * A profile kind's section: its name, and the phrase for the line printed at exit, which
 * {@link #writeRecords} returns. A kind writes its records and says what they hold; the name and
 * the phrase's keeping are here.
 */
abstract class KindSection implements Profiles.Section {
    private final String kind;
    /** What the last write returned. */
    private String description = "";

    KindSection(String kind) {
        this.kind = kind;
    }

    /** Adds the section's records to {@code file} (as {@link Profiles.Section#write}) and returns the phrase that describes them. */
    abstract String writeRecords(ProfileFile file);

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final void write(ProfileFile file) {
        description = writeRecords(file);
    }

    @Override
    public final String describe() {
        return description;
    }
}
