package lockbench.spring;

/** What init asks and the driver cannot serve (an "unsupported" error), or a malformed init. */
final class Unsupported extends Exception {
    final String code;

    Unsupported(String code, String text) {
        super(text);
        this.code = code;
    }

    static Unsupported unsupported(String text) {
        return new Unsupported("unsupported", text);
    }

    static Unsupported malformed(String text) {
        return new Unsupported("malformed", text);
    }
}
