/*
 * generator/schema.h: the JSON Schema (draft-07) of an intent, for editors
 * (yaml-language-server) and CI validators. Generated from the reader's key
 * tables (intent_keysets in generator/intent.c) and the enum name tables;
 * the schema checks shape (keys, types, enums, ranges, required keys);
 * the cross-field rules stay in validate.c (tests/schema/semantic.txt).
 */
#ifndef GENERATOR_SCHEMA_H
#define GENERATOR_SCHEMA_H

#include "util/buf.h"
#include "util/err.h"

/* schema_write: append the schema (deterministic, ends in '\n') to *out;
 * -1 (ERR_INVALID) if a key of the reader's tables has no type here. */
int schema_write(struct buf *out, struct err *e);

#endif
