/**
 * When the console cannot get an answer from the API, the failure is put in the shape of any other
 * failed call (tRPC's error body with the API's envelope inside), so pages show a sentence saying what
 * is unreachable, never a JSON parse error from a body that was not the API's (an HTML error page, a
 * cut connection). Two places do it: the /trpc proxy, which knows the API's address
 * (`ApiUnreachable`), and the browser's tRPC link, for when the console's own server does not answer
 * (`ConsoleUnreachable`).
 */
export type UnreachableCode = "ApiUnreachable" | "ConsoleUnreachable";

/** Whether a response carries tRPC's JSON (anything else is not the API answering). */
export function isJsonResponse(response: Response): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get("content-type") ?? "");
}

/** A 502 whose body the console renders like an API error: `message` says what did not answer. */
export function unreachableResponse(code: UnreachableCode, message: string): Response {
  const body = {
    error: {
      message,
      code: -32603,
      data: { httpStatus: 502, envelope: { error: { code, message, requestId: "none" } } },
    },
  };
  return Response.json(body, { status: 502 });
}

/** The link's fetch: a console server that cannot be reached, or answers with something else than JSON, reads as unreachable. */
export async function fetchThroughConsole(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch {
    return unreachableResponse(
      "ConsoleUnreachable",
      "The console's server is not reachable. Check that it is running, then retry.",
    );
  }
  if (isJsonResponse(response)) return response;
  return unreachableResponse(
    "ConsoleUnreachable",
    `The console's server answered HTTP ${response.status} without the API's JSON. Check that it and the API are running, then retry.`,
  );
}
