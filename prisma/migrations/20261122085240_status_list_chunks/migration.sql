-- CreateTable
CREATE TABLE "StatusListChunk" (
    "listId" TEXT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "StatusListChunk_pkey" PRIMARY KEY ("listId","chunk")
);

-- Move the bits: every 1 KiB chunk of a list that has a set bit becomes a row (all-zero chunks need none).
INSERT INTO "StatusListChunk" ("listId", "chunk", "data")
SELECT l."id", c."chunk", substring(l."data" FROM c."chunk" * 1024 + 1 FOR 1024)
  FROM "StatusList" l
 CROSS JOIN LATERAL generate_series(0, (length(l."data") - 1) / 1024) AS c("chunk")
 WHERE length(l."data") > 0
   AND substring(l."data" FROM c."chunk" * 1024 + 1 FOR 1024)
       <> decode(repeat('00', least(1024, length(l."data") - c."chunk" * 1024)), 'hex');

-- AlterTable
ALTER TABLE "StatusList" DROP COLUMN "data";
