package komorium.runtime;

/** A profile kind's section: its name, and the phrase its {@link #write} leaves for the line printed at exit. */
abstract class KindSection implements Profiles.Section {
    private final String kind;
    /** Set by write. */
    String description = "";

    KindSection(String kind) {
        this.kind = kind;
    }

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final String describe() {
        return description;
    }
}
