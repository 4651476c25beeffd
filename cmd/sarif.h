/* cmd/sarif.h: moved to generator/sarif.h (this name stays for the files that
 * include it until they are updated) */
#include "generator/sarif.h"
