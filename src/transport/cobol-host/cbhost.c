/*
 * cbhost: runs compiled GnuCOBOL programs for Corebridge, one call at a time, CICS COMMAREA style.
 *
 * Frames on stdin and stdout: a 4-byte big-endian length, then a message (the CBHDR header record,
 * then the program's COMMAREA). HDR-TRAN-CODE names the program; it is called as
 *   CALL program USING CB-HEADER COMMAREA
 * and the same bytes, as the program left them, go back in a frame of the same length, in the order the
 * calls came. Frames that arrive together are read together; each answer is written, length and frame in
 * one write, as soon as its program returns, so a long call never holds back the answer of one before it.
 *
 * A program that ends the run unit (STOP RUN, a runtime error) exits the process: the exit handler
 * still answers the call in flight with HDR-RETURN-CODE 99 and reason PROGRAM_ABEND, and Corebridge
 * starts a new host. Programs' DISPLAY output goes to stderr; stdin and stdout carry frames only.
 *
 * Usage: cbhost HEADER-LENGTH TRAN-OFFSET:LENGTH RC-OFFSET:LENGTH REASON-OFFSET:LENGTH TEXT-OFFSET:LENGTH
 * (offsets in the header record, from its compiled copybook). Programs are found on COB_LIBRARY_PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libcob.h>

#define MAX_FRAME (1024 * 1024)

struct span { size_t offset, length; };

static int frames_in = -1, frames_out = -1;
/* The frame with 4 bytes before it, where its length goes when it is answered: one write for both. */
static unsigned char *framed, *frame;
static size_t frame_length;
/* Bytes read and not yet taken, from in_pos to in_len. */
static unsigned char *in_buf;
static size_t in_pos, in_len;
#define IN_CAPACITY (MAX_FRAME + 4)
static volatile int in_call;
static char program[32];
static size_t header_length;
static struct span tran, rc, reason, text;

static int write_exact(int fd, const unsigned char *from, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, from, n);
    if (w < 0) { if (errno == EINTR) continue; return -1; }
    from += w;
    n -= (size_t) w;
  }
  return 0;
}

static void answer(void) {
  framed[0] = (unsigned char) (frame_length >> 24);
  framed[1] = (unsigned char) (frame_length >> 16);
  framed[2] = (unsigned char) (frame_length >> 8);
  framed[3] = (unsigned char) frame_length;
  if (write_exact(frames_out, framed, 4 + frame_length) != 0) _exit(4);
}

/* Makes n bytes available from in_pos: 1, or 0 at the end of the input with nothing left, or -1. */
static int need(size_t n) {
  while (in_len - in_pos < n) {
    if (in_pos > 0) {
      memmove(in_buf, in_buf + in_pos, in_len - in_pos);
      in_len -= in_pos;
      in_pos = 0;
    }
    ssize_t r = read(frames_in, in_buf + in_len, IN_CAPACITY - in_len);
    if (r == 0) return in_len == 0 ? 0 : -1;
    if (r < 0) { if (errno == EINTR) continue; return -1; }
    in_len += (size_t) r;
  }
  return 1;
}

/* Writes text into a header field, padded with spaces (PIC X) and cut to the field's length. */
static void put(struct span field, const char *value) {
  size_t n = strlen(value);
  if (n > field.length) n = field.length;
  memset(frame + field.offset, ' ', field.length);
  memcpy(frame + field.offset, value, n);
}

static void put_rc(const char *digits) {
  /* HDR-RETURN-CODE is PIC 9(2) DISPLAY: ASCII digits, right-aligned, zero-filled. */
  size_t n = strlen(digits);
  memset(frame + rc.offset, '0', rc.length);
  memcpy(frame + rc.offset + rc.length - n, digits, n);
}

static void answer_abend_on_exit(void) {
  if (!in_call) return;
  in_call = 0;
  char message[120];
  snprintf(message, sizeof message, "program %s ended the run unit", program);
  put_rc("99");
  put(reason, "PROGRAM_ABEND");
  put(text, message);
  answer();
}

static int parse_span(const char *arg, struct span *out) {
  char *end;
  unsigned long offset = strtoul(arg, &end, 10);
  if (*end != ':') return -1;
  unsigned long length = strtoul(end + 1, &end, 10);
  if (*end != '\0' || length == 0) return -1;
  out->offset = offset;
  out->length = length;
  return 0;
}

/* The program name from HDR-TRAN-CODE: trailing spaces cut; letters, digits and '-' only. */
static int program_name(void) {
  size_t n = tran.length;
  if (n >= sizeof program) return -1;
  memcpy(program, frame + tran.offset, n);
  while (n > 0 && program[n - 1] == ' ') n--;
  program[n] = '\0';
  if (n == 0) return -1;
  for (size_t i = 0; i < n; i++) {
    char c = program[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: cbhost HEADER-LENGTH TRAN RC REASON TEXT (each OFFSET:LENGTH)\n");
    return 2;
  }
  header_length = strtoul(argv[1], NULL, 10);
  if (header_length == 0 || parse_span(argv[2], &tran) || parse_span(argv[3], &rc) || parse_span(argv[4], &reason)
      || parse_span(argv[5], &text) || tran.offset + tran.length > header_length || rc.offset + rc.length > header_length
      || reason.offset + reason.length > header_length || text.offset + text.length > header_length || rc.length < 2) {
    fprintf(stderr, "cbhost: bad header layout arguments\n");
    return 2;
  }
  /* Frames keep the original descriptors; the programs' DISPLAY and ACCEPT get stderr and /dev/null. */
  frames_in = dup(0);
  frames_out = dup(1);
  int devnull = open("/dev/null", O_RDONLY);
  if (frames_in < 0 || frames_out < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(2, 1) < 0) {
    perror("cbhost");
    return 2;
  }
  close(devnull);
  framed = malloc(4 + MAX_FRAME);
  in_buf = malloc(IN_CAPACITY);
  if (!framed || !in_buf) return 2;
  frame = framed + 4;
  cob_init(0, NULL);
  atexit(answer_abend_on_exit);

  for (;;) {
    int got = need(4);
    if (got == 0) break; /* Corebridge closed the pipe: a clean end. */
    if (got < 0) return 3;
    const unsigned char *length = in_buf + in_pos;
    frame_length = ((size_t) length[0] << 24) | ((size_t) length[1] << 16) | ((size_t) length[2] << 8) | length[3];
    if (frame_length < header_length || frame_length > MAX_FRAME) {
      fprintf(stderr, "cbhost: frame of %zu bytes refused\n", frame_length);
      return 3;
    }
    if (need(4 + frame_length) != 1) return 3;
    /* The program writes its answer over the frame: a copy of its own, not the input's bytes. */
    memcpy(frame, in_buf + in_pos + 4, frame_length);
    in_pos += 4 + frame_length;
    if (program_name() != 0) {
      put_rc("90");
      put(reason, "UNKNOWN_PROGRAM");
      put(text, "the transaction code names no program");
    } else if (cob_resolve(program) == NULL) {
      put_rc("90");
      put(reason, "UNKNOWN_PROGRAM");
      put(text, "no such program on this host");
    } else {
      void *args[2] = { frame, frame + header_length };
      in_call = 1;
      cob_call(program, 2, args);
      in_call = 0;
    }
    answer();
  }
  cob_tidy();
  return 0;
}
