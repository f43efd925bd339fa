// Installs the server's full checks into the contract's schemas (packages/contracts/src/server-checks.ts):
// certificates parsed with node:crypto, redirect URIs under the protocol's rules. Imported for its effect
// by rpc/trpc.ts and the package's index, so it runs before any request is parsed.
import { installServerChecks } from "@cred/contracts/server-checks";
import { isAcceptableRedirectUri } from "@cred/oid4vc";
import { isPemCaCertificate } from "./pem-certificate";

installServerChecks({ isPemCaCertificate, isAcceptableRedirectUri });
