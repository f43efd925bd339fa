/**
 * How an `IssuerKey` row names a key in a PKCS#11 token (`providerKeyRef`): an RFC 7512 PKCS#11 URI
 * with the token label and the key's CKA_ID, e.g. `pkcs11:token=issuers;id=%8a%01…`. The label is what
 * an operator sees in the token's tools; the id (16 random bytes) is what the provider looks keys up by.
 */
export interface Pkcs11KeyLocation {
  token: string;
  id: Buffer;
}

const pctEncode = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** Characters RFC 7512 §2.3 lets a path attribute value hold unencoded (pchar minus ';' and '/'). */
const UNRESERVED = /[A-Za-z0-9\-._~!$&'()*+,=:@]/;

function encodeText(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) => {
      const ch = String.fromCharCode(b);
      return b < 0x80 && UNRESERVED.test(ch) ? ch : `%${b.toString(16).padStart(2, "0")}`;
    })
    .join("");
}

export function formatPkcs11Uri(location: Pkcs11KeyLocation): string {
  return `pkcs11:token=${encodeText(location.token)};id=${pctEncode(location.id)}`;
}

/** The token label and CKA_ID of a PKCS#11 URI; null when it names neither. */
export function parsePkcs11Uri(uri: string): Pkcs11KeyLocation | null {
  if (!uri.startsWith("pkcs11:")) return null;
  const path = uri.slice("pkcs11:".length).split("?")[0] ?? "";
  const attributes = new Map<string, string>();
  for (const part of path.split(";")) {
    const at = part.indexOf("=");
    if (at > 0) attributes.set(part.slice(0, at), part.slice(at + 1));
  }
  const token = attributes.get("token");
  const id = attributes.get("id");
  if (token === undefined || id === undefined) return null;
  try {
    return {
      token: decodeURIComponent(token),
      id: Buffer.from(
        id.replace(/%([0-9a-fA-F]{2})|./g, (match, hex: string | undefined) =>
          hex ? String.fromCharCode(Number.parseInt(hex, 16)) : match,
        ),
        "latin1",
      ),
    };
  } catch {
    return null;
  }
}
