import { z } from "zod";

/**
 * Validation messages people can act on, the same in the API's error details and in the console's
 * forms (which validate with the same schemas): "must not be empty" rather than zod's
 * "Too small: expected string to have >=1 characters". Only length and range messages are reworded;
 * everything else keeps zod's text or the schema's own message.
 */
z.config({
  customError: (issue) => {
    if (issue.code !== "too_small" && issue.code !== "too_big") return undefined;
    const bound = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
    const inclusive = issue.inclusive !== false;
    switch (issue.origin) {
      case "string":
        if (issue.code === "too_small")
          return bound <= 1 ? "must not be empty" : `must be at least ${bound} characters`;
        return `must be at most ${bound} characters`;
      case "array":
      case "set":
        if (issue.code === "too_small")
          return bound <= 1 ? "must not be empty" : `must have at least ${bound} items`;
        return `must have at most ${bound} item${bound === 1 ? "" : "s"}`;
      case "number":
      case "int":
      case "bigint":
        if (issue.code === "too_small")
          return inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
        return inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
      default:
        return undefined;
    }
  },
});
