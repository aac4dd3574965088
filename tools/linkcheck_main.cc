// The entry point of the layer link checks (CMakeLists.txt, tare_layer): each NAME_linkcheck
// executable is this empty main plus every object of one layer and of the layers below it, so it
// links only if the layer calls nothing defined above it. It is built, never run.
int main() { return 0; }
