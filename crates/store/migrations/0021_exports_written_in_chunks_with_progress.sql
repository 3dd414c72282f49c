-- Migration 21: exports written in chunks as they are built, with their progress
-- (Version 20 is another branch's; the versions need not follow each other, see `migrations::run`.)
--
-- An export's file is no longer one value (`exports.content`, which had to fit in memory
-- whole, twice, and capped exports at 200 000 rows): the builder writes it as it goes, in
-- pieces of whole CSV records of a few hundred KiB each, and the download reads one piece at a
-- time. `byte_offset` is where a piece starts in the file, in bytes (not characters), so a
-- Range request finds the pieces it needs by key; the pieces of an export are numbered from
-- 0 with no gap. Each piece carries its organization, as every row does.
CREATE TABLE export_chunks (
    organization_id TEXT NOT NULL,
    export_id TEXT NOT NULL REFERENCES exports(id),
    seq BIGINT NOT NULL,
    byte_offset BIGINT NOT NULL,
    byte_size BIGINT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (export_id, seq)
);

-- Files completed before this migration become their export's one piece (`byte_size` is
-- their length in bytes, as `complete` recorded it), so one code path serves every file and
-- nothing reads `exports.content` any more; the column stays, empty, as released
-- migrations stay.
INSERT INTO export_chunks (organization_id, export_id, seq, byte_offset, byte_size, content)
SELECT organization_id, id, 0, 0, byte_size, content FROM exports
WHERE status = 'completed' AND content IS NOT NULL;

UPDATE exports SET content = NULL WHERE content IS NOT NULL;

-- How far the builder is: records written, and the records that matched when it began
-- (`NULL` until it has counted them). A completed export has both equal to `row_count`.
ALTER TABLE exports ADD COLUMN rows_done BIGINT;

ALTER TABLE exports ADD COLUMN rows_total BIGINT;

UPDATE exports SET rows_done = row_count, rows_total = row_count WHERE status = 'completed';
