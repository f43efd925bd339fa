/**
 * A start that cannot go on for a reason the operator fixes outside the code (settings, the database):
 * entry points print its message alone, without a stack trace, and exit 1.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

/** Invalid environment variables, every one named in the message (one a line). */
export class EnvError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}
