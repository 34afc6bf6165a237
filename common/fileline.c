/* fileline.c - a number from the first line of a text file that a scanf format matches, read a line at a time.
 * Used by staprun (MemAvailable) and stapio (an fdinfo's memlock, CONFIG_HZ). */
#include "fileline.h"

#include <stdio.h>

int file_line_number(const char *path, const char *format, unsigned long long *value)
{
	char line[256];
	unsigned long long v;
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, format, &v) == 1;
	fclose(f);
	if (found)
		*value = v;
	return found;
}
