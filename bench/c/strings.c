/* Strings as (pointer, length) heap buffers, mirroring Toy's immutable str:
   every concatenation and substring allocates a new string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { long len; char *data; } Str;
static Str str_concat(Str a, Str b) {
    Str r = { a.len + b.len, malloc(a.len + b.len + 1) };
    memcpy(r.data, a.data, a.len);
    memcpy(r.data + a.len, b.data, b.len);
    r.data[r.len] = 0;
    return r;
}
static Str str_lit(const char *s) { Str r = { (long)strlen(s), malloc(strlen(s) + 1) }; memcpy(r.data, s, r.len + 1); return r; }
static Str str_of_int(long x) { char buf[32]; snprintf(buf, sizeof buf, "%ld", x); return str_lit(buf); }
static Str substr(Str s, long start, long end) {
    Str r = { end - start, malloc(end - start + 1) };
    memcpy(r.data, s.data + start, r.len);
    r.data[r.len] = 0;
    return r;
}
typedef struct { long len, cap; Str *items; } StrArray;
static void push(StrArray *a, Str s) {
    if (a->len == a->cap) { a->cap = a->cap ? a->cap * 2 : 4; a->items = realloc(a->items, a->cap * sizeof(Str)); }
    a->items[a->len++] = s;
}
static StrArray split(Str s, Str sep) {
    StrArray out = { 0, 0, NULL };
    long start = 0, i = 0;
    while (i + sep.len <= s.len) {
        if (memcmp(s.data + i, sep.data, sep.len) == 0) { push(&out, substr(s, start, i)); i += sep.len; start = i; }
        else i++;
    }
    push(&out, substr(s, start, s.len));
    return out;
}
static Str join(StrArray parts, Str sep) {
    Str out = str_lit("");
    for (long i = 0; i < parts.len; i++) {
        if (i > 0) { Str t = str_concat(out, sep); free(out.data); out = t; }
        Str t = str_concat(out, parts.items[i]); free(out.data); out = t;
    }
    return out;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long pieces = 0, total = 0, bytes = 0;
    Str comma = str_lit(","), semi = str_lit("; ");
    for (long r = 0; r < n; r++) {
        Str line = str_lit("");
        for (long k = 0; k < 20; k++) {
            if (k > 0) { Str t = str_concat(line, comma); free(line.data); line = t; }
            Str num = str_of_int(r * 20 + k);
            Str t = str_concat(line, num); free(line.data); free(num.data); line = t;
        }
        StrArray parts = split(line, comma);
        pieces += parts.len;
        for (long i = 0; i < parts.len; i++) total += strtol(parts.items[i].data, NULL, 10);
        Str joined = join(parts, semi);
        bytes += line.len + joined.len;
        for (long i = 0; i < parts.len; i++) free(parts.items[i].data);
        free(parts.items); free(joined.data); free(line.data);
    }
    printf("%ld %ld %ld\n", pieces, total, bytes);
    return 0;
}
