// Signatures per second through the PKCS#11 key provider against a fresh SoftHSM2 token, and what each
// costs the main thread (docs/key-custody.md, "Numbers"). Not part of `pnpm bench`: a micro-measurement.
//   pnpm --filter @cred/api exec tsx scripts/pkcs11-sign-rate.ts [count] [provider module]
// The provider module (default ../src/key-custody/pkcs11-key-provider.ts) lets an older implementation be
// measured beside the current one, alternately, on the same machine.
import { performance } from "node:perf_hooks";
import { freshSoftHsmToken, softHsmMissing } from "../test/fixtures/softhsm";

if (softHsmMissing) throw new Error(softHsmMissing);
const count = Number(process.argv[2] ?? 4_000);
const modulePath = process.argv[3] ?? "../src/key-custody/pkcs11-key-provider.ts";
const { Pkcs11KeyProvider } = (await import(
  modulePath
)) as typeof import("../src/key-custody/pkcs11-key-provider");

const hsm = freshSoftHsmToken("sign-rate");
const provider = new Pkcs11KeyProvider({ ...hsm.settings, sessions: 4 });
const key = await provider.generate({ usage: "sign", sealedFor: "x", label: "sign-rate" });
const signer = await provider.signingKey({
  provider: "pkcs11",
  providerKeyRef: key.providerKeyRef,
  privateKeyCipher: null,
  sealedFor: "x",
});
const input = new TextEncoder().encode("header.payload");

async function measure(concurrency: number) {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const t = performance.now();
        await signer.signEs256(input);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(loop);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    concurrency,
    perSecond: Math.round(count / seconds),
    p50: at(0.5).toFixed(3),
    p99: at(0.99).toFixed(3),
    /** Event-loop (main thread) busy time per signature, ms. */
    mainThreadMs: ((busy.active / count) as number).toFixed(4),
    /** All threads of the process, ms. */
    processCpuMs: ((used.user + used.system) / 1_000 / count).toFixed(4),
  };
}

await measure(1); // warm-up: the connection, the key handle, JIT
for (const concurrency of [1, 4, 16]) console.log(JSON.stringify(await measure(concurrency)));
await provider.close();
hsm.remove();
