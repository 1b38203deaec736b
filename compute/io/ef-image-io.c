/* placeholder */
typedef int ef_placeholder_ef_image_io;
