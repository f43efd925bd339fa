/**
 * `@peculiar/x509`, loaded after the Reflect metadata polyfill its `tsyringe` needs ("tsyringe requires a
 * reflect polyfill"): `@abraham/reflection`, the small one the console's wallet uses too.
 */
import "@abraham/reflection";
import * as x509 from "@peculiar/x509";

// Node's webcrypto and the DOM Crypto type differ only in typings.
x509.cryptoProvider.set(globalThis.crypto as never);

export { x509 };
