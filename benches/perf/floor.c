/* The floor of a leg on SQLite (floor.rs): the smallest program that does what a leg must
 * do to the store. Linked with the SQLite the product is built with (the static library of
 * its build), it opens a store the product made with the product's settings (WAL,
 * synchronous = FULL, no checkpoint at close, auto-checkpoint every 256 pages) and commits
 * as a leg does: `run` hands one transaction to the OS and makes the next durable (a new
 * run, then its suspension); `answer` makes two durable (the answer, then the suspension).
 * Each transaction takes the write lock, reads the run and writes one row.
 *
 * Usage: leg-floor DB run|answer. Exit 0, or 1 with SQLite's message. */
#include <stdio.h>
#include <string.h>

/* The few declarations of sqlite3.h it needs (that header is not where this is built). */
typedef struct sqlite3 sqlite3;
int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs);
int sqlite3_db_config(sqlite3 *db, int op, ...);
int sqlite3_exec(sqlite3 *db, const char *sql, void *callback, void *arg, char **err);
const char *sqlite3_errmsg(sqlite3 *db);
int sqlite3_close(sqlite3 *db);
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE 1006

static const char *SETTINGS =
    "PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; "
    "PRAGMA wal_autocheckpoint = 256; PRAGMA journal_size_limit = 4194304; "
    "PRAGMA cache_size = -512;";
static const char *TRANSACTION =
    "BEGIN IMMEDIATE; SELECT status FROM runs ORDER BY key DESC LIMIT 1; "
    "INSERT INTO leg_floor (at) VALUES (1); COMMIT;";

static int fail(sqlite3 *db) {
    fprintf(stderr, "leg-floor: %s\n", db ? sqlite3_errmsg(db) : "out of memory");
    return 1;
}

int main(int argc, char **argv) {
    sqlite3 *db = 0;
    if (argc != 3 || (strcmp(argv[2], "run") && strcmp(argv[2], "answer"))) {
        fprintf(stderr, "usage: leg-floor DB run|answer\n");
        return 2;
    }
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, 0)) return fail(db);
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0)) return fail(db);
    if (sqlite3_exec(db, SETTINGS, 0, 0, 0)) return fail(db);
    int deferred = strcmp(argv[2], "run") == 0;
    if (deferred && sqlite3_exec(db, "PRAGMA synchronous = NORMAL", 0, 0, 0)) return fail(db);
    if (sqlite3_exec(db, TRANSACTION, 0, 0, 0)) return fail(db);
    if (deferred && sqlite3_exec(db, "PRAGMA synchronous = FULL", 0, 0, 0)) return fail(db);
    if (sqlite3_exec(db, TRANSACTION, 0, 0, 0)) return fail(db);
    return sqlite3_close(db) ? fail(db) : 0;
}
