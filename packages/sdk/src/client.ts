import createOpenApiClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from "openapi-typescript-helpers";
import { CredApiError } from "./errors.js";
import { API_VERSION, type paths } from "./generated/openapi.js";
import { paginate } from "./paging.js";
import { type RetryOptions, retryingFetch } from "./retry.js";

export interface CredClientOptions {
  /** The API's origin, e.g. `http://localhost:3000` (a path prefix is kept). */
  baseUrl: string;
  /** An API key as the console, the CLI or the bootstrap printed it; sent as `Authorization: ApiKey <key>`. */
  apiKey: string;
  /** The Management plane's `api-version`, added to every `/management/…` request (default: API_VERSION). */
  apiVersion?: string;
  /** 429 handling (default: 2 retries, each wait at most 10 s); `false` returns every 429 at once. */
  retry?: RetryOptions | false;
  /** Headers sent on every request (e.g. a fixed `x-ms-client-request-id` prefix of your own). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** What a call adds to openapi-fetch's options: an `Idempotency-Key` for the operations that take one. */
export interface CallExtras {
  /** Sent as the `Idempotency-Key` header (make one with `newIdempotencyKey()` and reuse it on retries). */
  idempotencyKey?: string;
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallExtras)?] : [Init & CallExtras];

/** The success body of `method path` (e.g. `{ data: IssuanceTransaction }`, or a page `{ data, nextCursor }`). */
export type SuccessBody<
  Method extends HttpMethod,
  Path extends PathsWithMethod<paths, Method>,
  Init = unknown,
> = NonNullable<FetchResponse<Extract<paths[Path][Method], Record<string, any>>, Init, MediaType>["data"]>;

/** A call that resolves to the success body and throws `CredApiError` for any other answer. */
type CallMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<SuccessBody<Method, Path, Init>>;

/** GET paths whose success body is a page (`{ data: [...], nextCursor }`). */
export type ListPath = {
  [Path in PathsWithMethod<paths, "get">]: SuccessBody<"get", Path> extends {
    data: unknown[];
    nextCursor: string | null;
  }
    ? Path
    : never;
}[PathsWithMethod<paths, "get">];

/** The item type of a list path. */
export type ListItem<Path extends ListPath> =
  SuccessBody<"get", Path> extends { data: (infer Item)[] } ? Item : never;

export interface CredClient {
  get: CallMethod<"get">;
  post: CallMethod<"post">;
  put: CallMethod<"put">;
  patch: CallMethod<"patch">;
  delete: CallMethod<"delete">;
  /**
   * Every item of a list operation, reading page after page as the iteration goes (keyset paging by
   * `cursor`; `params.query.limit` sets the page size, the other query members filter as usual).
   */
  list<Path extends ListPath, Init extends MaybeOptionalInit<paths[Path], "get">>(
    path: Path,
    ...init: InitParam<Init>
  ): AsyncGenerator<ListItem<Path>, void, undefined>;
  /**
   * The underlying openapi-fetch client (same key, api-version and retries): its calls resolve to
   * `{ data, error, response }` instead of throwing, for callers that want the response itself.
   */
  raw: Client<paths>;
}

/** Adds `api-version` to Management requests that do not name one. */
function apiVersionMiddleware(apiVersion: string) {
  return {
    async onRequest({ request, schemaPath }: { request: Request; schemaPath: string }) {
      if (!schemaPath.startsWith("/management/")) return undefined;
      const url = new URL(request.url);
      if (url.searchParams.has("api-version")) return undefined;
      url.searchParams.set("api-version", apiVersion);
      const body = request.body ? await request.arrayBuffer() : undefined;
      return new Request(url, {
        method: request.method,
        headers: request.headers,
        body,
        redirect: request.redirect,
        signal: request.signal,
      });
    },
  };
}

/**
 * A typed client of the REST API (both planes). Calls resolve to the success body and throw
 * `CredApiError` (code, status, message, requestId, details) otherwise:
 *
 *   const cred = createCredClient({ baseUrl: "http://localhost:3000", apiKey });
 *   const { data: tx } = await cred.post("/v1.0/issuance-transactions", { body, idempotencyKey });
 *   for await (const tx of cred.list("/v1.0/issuance-transactions")) …
 */
export function createCredClient(options: CredClientOptions): CredClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const fetch = options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry);
  const raw = createOpenApiClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch,
    headers: { ...options.headers, Authorization: `ApiKey ${options.apiKey}` },
  });
  raw.use(apiVersionMiddleware(options.apiVersion ?? API_VERSION));

  async function call(
    method: HttpMethod,
    path: string,
    init: (Record<string, any> & CallExtras) | undefined,
  ) {
    const { idempotencyKey, ...rest } = init ?? {};
    const headers =
      idempotencyKey === undefined ? rest.headers : { ...rest.headers, "Idempotency-Key": idempotencyKey };
    const { data, error, response } = await (raw.request as any)(method, path, { ...rest, headers });
    if (!response.ok) throw CredApiError.fromResponse(response, error);
    return data;
  }

  const method =
    <Method extends HttpMethod>(name: Method): CallMethod<Method> =>
    (path, ...init) =>
      call(name, path as string, init[0] as Record<string, any> | undefined);

  return {
    get: method("get"),
    post: method("post"),
    put: method("put"),
    patch: method("patch"),
    delete: method("delete"),
    list(path, ...init) {
      const base = (init[0] ?? {}) as Record<string, any>;
      return paginate((cursor) =>
        call("get", path, {
          ...base,
          params: { ...base.params, query: { ...base.params?.query, ...(cursor ? { cursor } : {}) } },
        }),
      ) as AsyncGenerator<any, void, undefined>;
    },
    raw,
  };
}
