// throw.cc - the C++ program of tests/guest/uprobe-library.t: `throw N` throws and catches N exceptions
// (libstdc++'s SDT markers throw and catch each fire N times).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static int thrower(int i)
{
	if (i >= 0)
		throw std::runtime_error("uprobe-library");
	return i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 3, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			thrower(i);
		} catch (const std::exception &e) {
			caught++;
		}
	}
	std::printf("throw done %d\n", caught);
	return 0;
}
