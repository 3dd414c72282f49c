-- Migration 11: exports: the filter as checked when the export was created
-- have none (`NULL`): they are refused when built, with a message asking for a new one.

ALTER TABLE exports ADD COLUMN filter TEXT;
