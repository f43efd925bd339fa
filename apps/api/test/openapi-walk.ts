import { createTestAccessCa, createTestRegistrar, type TestAccessCa, type TestRegistrar } from "@cred/oid4vc";
import type { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { API_VERSION, type CallResult, call, type TestServer } from "./harness";

/**
 * Walks the operations openapi.json lists and sends their documented examples, as the interactive
 * reference (/docs) would: shared by the tests that cover every operation without naming it
 * (openapi-examples, tenant-isolation-guards).
 */

export type Json = Record<string, any>;

export interface Operation {
  id: string;
  method: string;
  path: string;
  operation: Json;
}

export interface OpenApiDocument {
  doc: Json;
  operations: Operation[];
  /** Follows a local `$ref` (`#/components/...`). */
  resolve(node: Json | undefined): Json | undefined;
  /** The value /docs fills in for a parameter: its example, else its schema's example or default. */
  parameterExample(parameter: Json): unknown;
  /** The body /docs fills in: the media type's example, else the schema's first `examples`, `default` or `example`. */
  bodyExample(operation: Json): { present: boolean; value?: unknown };
  parametersOf(operation: Json): Json[];
}

/** The server's openapi.json and the operations it lists, in the document's order. */
export async function loadOpenApi(t: Pick<TestServer, "baseUrl">): Promise<OpenApiDocument> {
  const doc = (await call(t, "GET", "/openapi.json")).body as Json;
  const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        id: operation.operationId as string,
        method: method.toUpperCase(),
        path,
        operation,
      })),
  );
  const resolve = (node: Json | undefined): Json | undefined => {
    if (!node?.$ref) return node;
    const target = (node.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce<Json | undefined>((at, part) => at?.[part], doc);
    return resolve(target);
  };
  return {
    doc,
    operations,
    resolve,
    parameterExample(parameter) {
      const schema = resolve(parameter.schema) ?? {};
      return parameter.example ?? schema.example ?? schema.default ?? parameter.default;
    },
    bodyExample(operation) {
      const media = operation.requestBody?.content?.["application/json"];
      if (!media) return { present: false };
      const schema = resolve(media.schema) ?? {};
      const named = media.examples ? resolve(Object.values(media.examples)[0] as Json)?.value : undefined;
      return {
        present: true,
        value: media.example ?? named ?? schema.examples?.[0] ?? schema.default ?? schema.example,
      };
    },
    parametersOf: (operation) => ((operation.parameters ?? []) as Json[]).map((p) => resolve(p) as Json),
  };
}

/** Members of a request body no example can hold, made for the caller's own resource at `path`. */
export type MadeForTheCaller = Record<string, (path: string) => Promise<Json>>;

/**
 * A certificate chain for an issuer's key, issued by the caller's CA for the request
 * Issuers_GetCertificateSigningRequest returns; the example's chain is well-formed but certifies
 * another key.
 */
export function ownSigningCertificate(
  t: Pick<TestServer, "baseUrl">,
  key: string,
  ca: Awaited<ReturnType<typeof createTestCertificateAuthority>>,
): MadeForTheCaller {
  // The caller's access CA and registrar, made on first use.
  let authorities: Promise<[TestAccessCa, TestRegistrar]> | undefined;
  const ownAuthorities = () => {
    authorities ??= Promise.all([createTestAccessCa(), createTestRegistrar()]);
    return authorities;
  };
  const verifierCertificate = async () =>
    (await call(t, "GET", `/management/verifier-certificate?api-version=${API_VERSION}`, { key })).body.data;
  return {
    // The chain the caller's access CA issues for the request VerifierCertificates_CreateSigningRequest made.
    VerifierCertificates_ImportAccessCertificate: async () => {
      const pending = (await verifierCertificate())?.signingRequest;
      if (!pending) return {}; // no request yet: the call answers 409 and is tried again
      const [ca] = await ownAuthorities();
      return { certificateChainPem: await ca.issue(pending.csrPem), trustAnchorPem: ca.rootPem };
    },
    // A registration naming the caller's access certificate and registering what its policies ask.
    VerifierRegistrationCertificates_Upload: async () => ownRegistration(),
    VerifierRegistrationCertificates_Add: async () => ownRegistration(),
    // The relying party's registration, with the caller (its access certificate) as the intermediary.
    RelyingParties_AddRegistrationCertificate: async (path) => {
      const party = await call(
        t,
        "GET",
        `${path.replace(/\/registration-certificates$/, "")}?api-version=${API_VERSION}`,
        {
          key,
        },
      );
      if (party.status !== 200) return {}; // not the caller's relying party: 404
      const own = await ownRegistration();
      if (!own.registrationCertificate) return own;
      const [organisationId] = (await verifierCertificate()).organisationIdentifiers;
      const [, registrar] = await ownAuthorities();
      const payload = JSON.parse(
        Buffer.from(String(own.registrationCertificate).split(".")[1]!, "base64url").toString(),
      );
      return {
        ...own,
        registrationCertificate: await registrar.sign({
          ...payload,
          sub: party.body.data.identifiers[0],
          name: party.body.data.name,
          act: { sub: { id: organisationId, name: "Intermediary" } },
        }),
      };
    },
    Issuers_SetSigningCertificate: async (path) => {
      const csrPath = path.replace(/signing-certificate$/, "certificate-signing-request");
      const csr = await call(t, "GET", `${csrPath}?api-version=${API_VERSION}`, { key });
      if (csr.status !== 200) return {}; // no issuer yet: the call answers 404 and is tried again
      return {
        certificateChainPem: (await ca.certify(csr.body.data.certificateSigningRequestPem)).chainPem,
      };
    },
  };

  async function ownRegistration(): Promise<Json> {
    const [organisationId] = (await verifierCertificate())?.organisationIdentifiers ?? [];
    if (!organisationId) return {}; // no access certificate yet: 409, tried again
    const policies = await call(t, "GET", `/management/verification-policies?api-version=${API_VERSION}`, {
      key,
    });
    const credentials = ((policies.body?.data ?? []) as Json[]).flatMap((policy) =>
      ((policy.rules?.credentials ?? []) as Json[]).flatMap((c) =>
        (c.credentialTypes as string[]).map((type) => ({
          format: "dc+sd-jwt",
          meta: type,
          // The top-level claim registers everything under it.
          claim: [...(c.requiredClaims ?? []), ...(c.optionalClaims ?? [])].map((path: unknown[]) => ({
            path: [String(path[0])],
          })),
        })),
      ),
    );
    const [, registrar] = await ownAuthorities();
    return {
      registrationCertificate: await registrar.sign({ sub: organisationId, name: "Example", credentials }),
      trustAnchorPem: registrar.rootPem,
    };
  }
}

export interface ExampleOutcome {
  status: number;
  body: unknown;
  target: string;
  sent: unknown;
}

/**
 * Sends operations' examples with one key, as a person trying the reference would: values the server
 * makes (an issuer's id, a transaction's) stand in the examples as example ids, and the real ones are
 * put in their place once the operation that makes them has answered.
 */
export function exampleRunner(
  t: Pick<TestServer, "baseUrl">,
  api: OpenApiDocument,
  key: string,
  madeForTheCaller: MadeForTheCaller = {},
  /** The key an operation is sent with when not `key` (platform operations: a platform key). */
  keyFor: (op: Operation) => string | undefined = () => undefined,
) {
  /** Example ids of values the server made → the values it made. */
  const made = new Map<string, string>();
  const substitute = (value: unknown): unknown => {
    if (typeof value === "string") return made.get(value) ?? value;
    if (Array.isArray(value)) return value.map(substitute);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
    return value;
  };
  /** Members the server made, per the response schema's example of each `id` or `…Id` member. */
  const learn = (op: Operation, result: CallResult) => {
    const content = op.operation.responses?.[String(result.status)]?.content?.["application/json"];
    const data = api.resolve(api.resolve(content?.schema)?.properties?.data);
    const actual = (result.body as Json | undefined)?.data;
    if (!data?.properties || !actual || typeof actual !== "object") return;
    for (const [name, member] of Object.entries(data.properties as Record<string, Json>)) {
      const example = api.resolve(member)?.example;
      if (!(name === "id" || name.endsWith("Id"))) continue;
      if (typeof example === "string" && typeof actual[name] === "string" && actual[name] !== example)
        made.set(example, actual[name]);
    }
  };
  /** The request an operation's example makes, with the values made so far in place of example ids. */
  const request = async (op: Operation) => {
    const query = new URLSearchParams();
    let path = op.path;
    for (const parameter of api.parametersOf(op.operation)) {
      const example = substitute(api.parameterExample(parameter));
      if (example === undefined) continue;
      if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, String(example));
      if (parameter.in === "query") query.set(parameter.name, String(example));
    }
    if (path.startsWith("/management/")) query.set("api-version", API_VERSION);
    const target = `${path}?${query}`;
    const example = api.bodyExample(op.operation);
    let body = example.present ? (substitute(example.value) as Json) : undefined;
    const own = madeForTheCaller[op.id];
    if (own) body = { ...body, ...(await own(path)) };
    return { target, body };
  };
  const send = async (op: Operation, as?: string) => {
    const { target, body } = await request(op);
    const withKey = as ?? keyFor(op) ?? key;
    const result = await call(t, op.method, target, {
      key: withKey,
      ...(body === undefined ? {} : { body }),
    });
    return { target, body, result };
  };

  /**
   * Sends each operation's example: collection creates first (they make what the others name), deletes
   * last (they undo it). An operation answered 404 or 409 changed nothing; it is tried again once others
   * have made what it needs (an issuance transaction needs an issuer that was activated), until a round
   * brings no success.
   */
  const run = async (operations: Operation[]) => {
    const collectionCreate = (op: Operation) => op.method === "POST" && !op.path.includes("{");
    const ordered = [
      ...operations.filter(collectionCreate),
      ...operations.filter((op) => !collectionCreate(op) && op.method !== "DELETE"),
      ...operations.filter((op) => op.method === "DELETE"),
    ];
    const outcomes = new Map<string, ExampleOutcome>();
    let pending = ordered;
    while (pending.length > 0) {
      const again: Operation[] = [];
      for (const op of pending) {
        const { target, body, result } = await send(op);
        outcomes.set(op.id, { status: result.status, body: result.body, target, sent: body });
        if (result.status < 300) learn(op, result);
        else if (result.status === 404 || result.status === 409) again.push(op);
      }
      if (again.length === pending.length) break;
      pending = again;
    }
    return outcomes;
  };

  return { made, substitute, request, send, run };
}
