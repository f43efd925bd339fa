/** `@peculiar/x509`, loaded after the Reflect metadata shim it needs (see `./reflect-metadata-shim`). */
import "./reflect-metadata-shim";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
