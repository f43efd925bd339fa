/** `@peculiar/x509`, loaded after the Reflect metadata shim it needs (see `./reflect-metadata-shim`). */
import "./reflect-metadata-shim";
import * as x509 from "@peculiar/x509";

// Node's webcrypto and the DOM Crypto type differ only in typings.
x509.cryptoProvider.set(globalThis.crypto as never);

export { x509 };
