#pragma once
#include <fcft/fcft.h>
