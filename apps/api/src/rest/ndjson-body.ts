import { Readable } from "node:stream";

/**
 * The body of an operation answering `application/x-ndjson` (meta `responseMediaType`): the procedure's
 * batches of items, one JSON item per line, one chunk per batch, read as the client takes them (one
 * batch ahead at most), so memory stays flat whatever the length.
 *
 * The first batch is read before anything is sent: a failure up to there is answered with the error
 * envelope like any other. A later failure ends the response without its last chunk, which a client sees
 * as a transfer cut short, never as a complete export. A client that goes away stops the reading.
 */
export async function ndjsonBody(batches: AsyncIterable<unknown[]>): Promise<Readable> {
  const iterator = batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks() {
    try {
      for (let step = first; !step.done; step = await iterator.next()) {
        if (step.value.length > 0) yield `${step.value.map((item) => JSON.stringify(item)).join("\n")}\n`;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return Readable.from(chunks(), { highWaterMark: 1 });
}
