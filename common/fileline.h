/* fileline.h - a number from the first line of a text file that a scanf format matches (/proc/meminfo's MemAvailable,
 * an fdinfo's memlock, a kernel config's CONFIG_HZ).  Used by staprun and stapio. */
#ifndef COMMON_FILELINE_H
#define COMMON_FILELINE_H

/* 1 with *value from the first line of path that format (one %llu conversion) matches; 0 when none does or the file
 * cannot be read (*value untouched) */
int file_line_number(const char *path, const char *format, unsigned long long *value);

#endif
